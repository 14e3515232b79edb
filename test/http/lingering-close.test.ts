// A client that sends a body over the route's limit hears the 413 (problem.ts lingerOnTooLarge): the server reads
// the rest of a declared body and drops it instead of closing while the client still sends, which reset the
// connection and could lose the answer (EPIPE in CI). Past LINGER_BYTES, or without a length, it still closes.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { BATCH_BODY_LIMIT } from '../../src/host/routes.js';
import { LINGER_BYTES } from '../../src/http/problem.js';

/** A raw connection that collects what the server sends and notes when it closed or failed. */
function open(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  const state = { received: '', closed: false, error: null as NodeJS.ErrnoException | null };
  socket.on('data', (c: Buffer) => { state.received += c.toString('latin1'); });
  socket.on('close', () => { state.closed = true; });
  socket.on('error', (err) => { state.error = err; });
  const until = async (done: () => boolean, what: string) => {
    const end = Date.now() + 10_000;
    while (!done()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(state).slice(0, 500)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  /** Writes `data` and waits until it has left, or the connection failed. */
  const write = (data: Buffer | string) => new Promise<void>((resolve) => {
    socket.write(data, () => resolve());
  });
  return { socket, state, until, write };
}

const head = (length: number) => `POST /host/v1/batch HTTP/1.1\r\nhost: 127.0.0.1\r\n`
  + `authorization: ${HOST_AUTH.authorization}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`;
// A status line follows the previous answer's body directly.
const answers = (received: string) => received.match(/HTTP\/1\.1 \d{3}/g) ?? [];

describe('A body over the limit', () => {
  let wp: Waypost;
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    wp = await testWaypost({ dialect: 'sqlite' });
    app = await wp.app();
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(async () => wp.close());

  it('is answered 413 before it is sent, read to its end, and the connection serves the next request', async () => {
    const size = BATCH_BODY_LIMIT + 4 * 1024 * 1024;
    const c = open(port);
    await c.write(head(size));
    // The answer comes from the declared length alone, while the whole body is still to be sent.
    await c.until(() => answers(c.state.received).length === 1, 'the 413');
    expect(c.state.received).toMatch(/^HTTP\/1\.1 413 /);
    expect(c.state.received).toContain('"code":"payload_too_large"');
    expect(c.state.received.toLowerCase()).not.toContain('connection: close');
    // Sending the rest after hearing it does not fail: the server reads it instead of resetting the connection.
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    for (let sent = 0; sent < size; sent += chunk.length) {
      await c.write(chunk.subarray(0, Math.min(chunk.length, size - sent)));
    }
    expect(c.state.error).toBeNull();
    // And the same connection takes the next request.
    const body = '{"operations":[]}';
    await c.write(head(body.length) + body);
    await c.until(() => answers(c.state.received).length === 2, 'the second answer');
    expect(answers(c.state.received)).toEqual(['HTTP/1.1 413', 'HTTP/1.1 200']);
    expect(c.state.error).toBeNull();
    c.socket.destroy();
  }, 30_000);

  it('declared past LINGER_BYTES is answered 413 and the connection closed, as before', async () => {
    const c = open(port);
    await c.write(head(LINGER_BYTES + 1));
    await c.until(() => c.state.closed, 'the server to close');
    expect(c.state.received).toMatch(/^HTTP\/1\.1 413 /);
    expect(c.state.received.toLowerCase()).toContain('connection: close');
  });
});
