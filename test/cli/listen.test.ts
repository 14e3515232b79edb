// `waypost listen --forward-to …` against a running Waypost: each event reaches the local URL exactly as a webhook
// would (the same body bytes and headers as a real webhook delivery of the same event, both signatures valid with
// the secret it printed), Ctrl-C ends it, and the next run resumes after the last event with the same secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { getGlobalDispatcher } from 'undici';
import { createApiKey, type CreatedApiKey } from '../../src/api/keys.js';
import { run } from '../../src/cli/run.js';
import { createWebhook } from '../../src/webhooks/manage.js';
import { signStandard, verifySignature } from '../../src/webhooks/sign.js';
import type { Waypost } from '../../src/sdk.js';
import { booking } from '../webhooks/engine/fixtures.js';
import { startReceiver, type Receiver } from '../webhooks/engine/receiver.js';
import { testWaypost } from '../helpers/waypost.js';
import { tempDir } from './run.js';

interface Listening {
  signals: EventEmitter;
  stdout: () => string;
  stderr: () => string;
  done: Promise<number>;
}

function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({ write(chunk, _enc, cb) { text += String(chunk); cb(); } });
  return { stream, text: () => text };
}

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('waypost listen', () => {
  let wp: Waypost;
  let url: string;
  let key: CreatedApiKey;
  let local: Receiver;
  let webhook: Receiver;
  const state = join(tempDir(), 'listen.json');

  const listen = (extra: string[], credentials = key): Listening => {
    const out = sink();
    const err = sink();
    const signals = new EventEmitter();
    const args = ['listen', '--url', url, '--key', credentials.key, '--secret', credentials.secret, '--state', state,
      '--wait', '1', ...extra];
    const done = run(args, { stdout: out.stream, stderr: err.stream, env: { PATH: process.env.PATH ?? '' }, signals });
    return { signals, stdout: out.text, stderr: err.text, done };
  };

  beforeAll(async () => {
    wp = await testWaypost({ config: { port: 0, host: '127.0.0.1' } });
    url = (await wp.serve()).url!;
    key = await createApiKey(wp.core, { label: 'listen', permissions: ['events.list'] });
    local = await startReceiver();
    webhook = await startReceiver();
    await createWebhook(wp.core, { name: 'real', url: webhook.url, events: ['booking.created', 'booking.updated'] });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([local?.close(), webhook?.close()]);
    // The CLI ran in this process: its keep-alive connections to the server (undici's global pool) are closed as the
    // CLI process's exit would close them, so the server's close does not wait on them.
    await getGlobalDispatcher().close();
    await wp?.close();
  });

  it('forwards each new event as a webhook arrives, signed with the secret it printed; Ctrl-C ends it', async () => {
    await wp.put('bookings', 100, booking()); // before the first run: not forwarded (a first run starts from now)
    await webhook.waitFor(1);
    const l = listen(['--forward-to', `${local.url}/hooks`]);
    const hooks = `${new URL(local.url).pathname.replace(/\/$/, '')}/hooks`;
    await until(() => l.stderr().includes('Press Ctrl-C'), 'the ready line');
    await wp.put('bookings', 101, booking({ status: 'booked' }));
    const [got] = await local.waitFor(1);
    const [, real] = await webhook.waitFor(2);
    expect(got.path).toBe(hooks);
    // The same bytes and the same headers as a real webhook delivery of that event.
    expect(got.raw.toString()).toBe(real.raw.toString());
    for (const name of ['content-type', 'x-waypost-event', 'webhook-id']) {
      expect(got.headers[name], name).toBe(real.headers[name]);
    }
    for (const name of Object.keys(real.headers)) if (name.startsWith('x-waypost-') || name.startsWith('webhook-')) {
      expect(got.headers[name], name).toBeDefined();
    }
    const secret = /Signing secret: (whsec_\S+)/.exec(l.stderr())![1];
    expect(verifySignature(got.raw, String(got.headers['x-waypost-signature']), secret)).toBe(true);
    const timestamp = Number(got.headers['webhook-timestamp']);
    expect(got.headers['webhook-signature']).toBe(signStandard(secret, String(got.headers['webhook-id']), timestamp,
      got.raw));
    const eventId = JSON.parse(got.raw.toString()).id as string;
    await until(() => l.stdout().includes(eventId), 'the line of the event');
    expect(l.stdout()).toMatch(new RegExp(`booking\\.created\\s+${eventId}\\s+→ 200 in \\d+ ms`));
    l.signals.emit('SIGINT');
    expect(await l.done).toBe(0);
    expect(l.stderr()).toContain(`The next run resumes after ${eventId}.`);

    // While it is stopped: one more event. The next run hands on that one only, with the same secret.
    await wp.put('bookings', 102, booking());
    const again = listen(['--forward-to', `${local.url}/hooks`]);
    const [, next] = await local.waitFor(2);
    expect(JSON.parse(next.raw.toString()).data.id).toBe(102);
    expect(again.stderr()).toContain(`Signing secret: ${secret}`);
    expect(again.stderr()).toContain(`Resuming after ${eventId}.`);
    again.signals.emit('SIGINT');
    expect(await again.done).toBe(0);
    expect(local.requests).toHaveLength(2);
  }, 60_000);

  it('--print-json --since replays past events as JSON lines, filtered by --events', async () => {
    await wp.put('bookings', 101, booking({ status: 'canceled' }));
    const l = listen(['--print-json', '--since', '1h', '--events', 'booking.updated,booking.canceled']);
    await until(() => l.stdout().split('\n').filter(Boolean).length >= 2, 'two JSON lines');
    l.signals.emit('SIGINT');
    expect(await l.done).toBe(0);
    const lines = l.stdout().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string });
    expect(lines.map((e) => e.type).sort()).toEqual(['booking.canceled', 'booking.updated']);
  }, 60_000);

  it('stops with a clear message for a key without events.list, and without a target', async () => {
    const other = await createApiKey(wp.core, { label: 'no events', permissions: ['bookings.list'] });
    const refused = listen(['--print-json'], other);
    expect(await refused.done).toBe(1);
    expect(refused.stderr()).toMatch(/answered 40[13]: .*"events\.list" permission\. Give the key events\.list/);
    const aimless = listen([]);
    expect(await aimless.done).toBe(1);
    expect(aimless.stderr()).toContain('give --forward-to <url>');
  }, 60_000);
});
