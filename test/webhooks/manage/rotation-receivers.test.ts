// The receiver examples of docs/webhooks.md (Node, Python, PHP), taken from it and run as written, through a secret
// rotation (DESIGN.md "Secret rotation"): a receiver still holding the old secret keeps answering 200 during the
// grace period, because X-Waypost-Signature lists both signatures; after it, only the new secret signs.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock, type FakeClock } from '../../helpers/clock.js';
import { DIALECTS, type TestDialect } from '../../helpers/db.js';
import { CI } from '../../helpers/services.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { adminHeaders } from './fixtures.js';

const WEBHOOKS_DOC = readFileSync(new URL('../../../docs/webhooks.md', import.meta.url), 'utf8');

/** The code block right after `<!-- example: marker -->` in docs/webhooks.md. */
function readmeExample(marker: string): string {
  const match = new RegExp(`<!-- example: ${marker} -->\\s*\`\`\`\\w+\\n([\\s\\S]*?)\`\`\``).exec(WEBHOOKS_DOC);
  if (!match) throw new Error(`docs/webhooks.md example ${marker} not found`);
  return match[1];
}

interface Example {
  lang: string;
  file: string;
  /** The command serving `file` (in `dir`) on 127.0.0.1:`port`. */
  command(dir: string, file: string, port: number): [string, string[]];
}

const EXAMPLES: Example[] = [
  { lang: 'node', file: 'receiver.mjs', command: (_dir, file) => [process.execPath, [file]] },
  { lang: 'python', file: 'receiver.py', command: (_dir, _file, port) =>
    ['python3', ['-m', 'flask', '--app', 'receiver', 'run', '--host', '127.0.0.1', '--port', String(port)]] },
  { lang: 'php', file: 'receiver.php', command: (_dir, file, port) => ['php', ['-S', `127.0.0.1:${port}`, file]] },
];

/** Whether a language's runtime (with Flask for Python) is here; required under CI=true, else skipped loudly. */
function runnable(lang: string): boolean {
  const probe = lang === 'python' ? spawnSync('python3', ['-c', 'import flask'])
    : lang === 'php' ? spawnSync('php', ['--version']) : { status: 0 };
  if (probe.status === 0) return true;
  if (CI) throw new Error(`the ${lang} receiver of docs/webhooks.md cannot run here`);
  console.warn(`\n⚠ SKIPPING the ${lang} receiver of docs/webhooks.md: its runtime is missing\n`);
  return false;
}

const freePort = () => new Promise<number>((resolve) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => {
    const port = (s.address() as { port: number }).port;
    s.close(() => resolve(port));
  });
});

const children: ChildProcess[] = [];

/** The docs' receiver for `lang`, holding `secret`, serving; its URL once it answers (401 to an unsigned POST). */
async function startExample(example: Example, secret: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), `waypost-readme-${example.lang}-`));
  const file = join(dir, example.file);
  writeFileSync(file, readmeExample(`${example.lang}-receiver`));
  const port = await freePort();
  const [cmd, args] = example.command(dir, file, port);
  const child = spawn(cmd, args,
    { cwd: dir, env: { ...process.env, WAYPOST_WEBHOOK_SECRET: secret, PORT: String(port) }, stdio: 'ignore' });
  children.push(child);
  const url = `http://127.0.0.1:${port}/waypost`;
  await expect.poll(() => request(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
    .then((r) => r.statusCode, () => 0), { timeout: 15_000 }).toBe(401);
  return url;
}

describe.each(DIALECTS)('the receivers of docs/webhooks.md through a secret rotation on %s', (dialect: TestDialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let clock: FakeClock;
  let auth: Record<string, string>;
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill();
    await wp?.close();
  });

  /** Sends a test event: the receiver's status and the request as sent (from the delivery log). */
  const sendTest = async (id: string) => {
    const res = (await app.inject({ method: 'POST', url: `/admin/api/webhooks/${id}/test`, headers: auth })).json();
    const attempt = await wp.core.db.selectFrom('delivery_attempts').selectAll()
      .where('delivery_id', '=', res.delivery_id).executeTakeFirstOrThrow();
    const headers = JSON.parse(attempt.request_headers) as Record<string, string>;
    return { status: res.response?.status as number | undefined, headers, body: attempt.request_body };
  };
  const replay = async (url: string, sent: { headers: Record<string, string>; body: string }) =>
    (await request(url, { method: 'POST', headers: sent.headers, body: sent.body })).statusCode;

  it.each(EXAMPLES)('$lang: 200 with the old secret during the grace period, the new one only after it',
    async (example) => {
    if (!runnable(example.lang)) return;
    // Real time at the start (any timestamp check a receiver adds), then moved by hand past the grace period.
    clock = manualClock(Date.now());
    wp = await testWaypost({ dialect, clock });
    app = await wp.app();
    auth = await adminHeaders(wp);
    const create = { name: 'Rotating', url: 'http://127.0.0.1:9/not-yet', events: ['booking.created'] };
    const hook = (await app.inject({ method: 'POST', url: '/admin/api/webhooks', headers: auth, payload: create }))
      .json();
    const oldReceiver = await startExample(example, hook.secret);
    await app.inject({ method: 'PATCH', url: `/admin/api/webhooks/${hook.id}`, headers: auth,
      payload: { url: oldReceiver } });

    const before = await sendTest(hook.id);
    expect(before.status).toBe(200);
    expect(before.headers['X-Waypost-Signature']).toMatch(/^sha256=[0-9a-f]{64}$/);

    const rotated = (await app.inject({ method: 'POST', url: `/admin/api/webhooks/${hook.id}/rotate-secret`,
      headers: auth, payload: { grace_seconds: 3600 } })).json();
    // The receiver has not been updated yet: it still holds the old secret, and still answers 200.
    const during = await sendTest(hook.id);
    expect(during.status).toBe(200);
    expect(during.headers['X-Waypost-Signature']).toMatch(/^sha256=[0-9a-f]{64},sha256=[0-9a-f]{64}$/);
    // A receiver already updated with the new secret accepts the same request.
    const newReceiver = await startExample(example, rotated.secret);
    expect(await replay(newReceiver, during)).toBe(200);

    clock.advance(3600_000); // the grace period ends: only the new secret is listed
    await app.inject({ method: 'PATCH', url: `/admin/api/webhooks/${hook.id}`, headers: auth,
      payload: { url: newReceiver } });
    const after = await sendTest(hook.id);
    expect(after.headers['X-Waypost-Signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(after.status).toBe(200);
    expect(await replay(oldReceiver, after)).toBe(401);
  }, 60_000);
});
