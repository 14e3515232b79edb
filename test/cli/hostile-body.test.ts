// Issue 29 item 1 against the server as `npm start` runs it (bin/waypost.js serve: the launcher, then the server as
// its child with the 160 MB heap): 16 MiB of nested empty arrays in one batch operation killed it ("Reached heap
// limit … JsonParser") and the delivery worker with it. Hostile bodies now get a 4xx and the process stays up; the
// bridge's largest real batch still goes through.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childPids } from '../helpers/processes.js';
import { freePort } from '../helpers/services.js';
import { reviewOperations } from '../host/real-batch.js';
import { tempSqliteUrl } from './run.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/waypost.js');
const built = existsSync(join(ROOT, 'dist/cli/main.js'));
if (!built) console.warn('hostile body tests skipped: no build (run `npm run build`)');

/** POSTs `body` to the batch; the answer even when the server answers before reading it all (a 413). */
function postBatch(port: number, body: Buffer): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/host/v1/batch', headers: {
      authorization: 'Bearer test-host-token', 'content-type': 'application/json', 'content-length': body.length,
    } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    // The server answers a body over its limit before reading it, then reads the rest (problem.ts lingerOnTooLarge):
    // a write error here would be the old early close resetting the connection (EPIPE in CI, the 413 lost).
    req.on('error', reject);
    req.end(body);
  });
}

const healthz = async (port: number) => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.status;
const around = (inner: string) =>
  Buffer.from(`{"operations":[{"op":"put","resource":"trips","id":1,"data":${inner}}]}`);

describe.skipIf(!built && process.env.CI !== 'true')('hostile batch bodies against `npm start`', () => {
  let launcher: ChildProcess;
  let server: number;
  let port: number;
  const output: string[] = [];

  beforeAll(async () => {
    port = await freePort();
    // What `npm start` runs (package.json: node bin/waypost.js serve), role all: API and delivery worker.
    launcher = spawn(process.execPath, [BIN, 'serve'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', DATABASE_URL: tempSqliteUrl(), PORT: String(port),
        WAYPOST_HOST_TOKEN: 'test-host-token' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    launcher.stdout!.on('data', (c: Buffer) => { output.push(String(c)); });
    launcher.stderr!.on('data', (c: Buffer) => { output.push(String(c)); });
    const end = Date.now() + 20_000;
    while ((await healthz(port)) !== 200) {
      if (Date.now() > end) throw new Error(`serve did not start:\n${output.join('')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    [server] = childPids(launcher.pid!);
  }, 30_000);

  afterAll(() => {
    if (launcher.exitCode === null && launcher.signalCode === null) launcher.kill('SIGKILL');
  });

  const stillUp = async () => {
    expect(await healthz(port), output.join('').slice(-2000)).toBe(200);
    expect(launcher.exitCode).toBeNull();
  };

  it('runs with the heap flags the launcher gives `serve`', () => {
    const args = readFileSync(`/proc/${server}/cmdline`, 'utf8').split('\0').filter(Boolean);
    expect(args).toEqual(expect.arrayContaining(['--max-semi-space-size=4', '--max-old-space-size=160']));
    expect(args.slice(-2)).toEqual([BIN, 'serve']);
  });

  it('answers 16 MiB of `[[],[],…]` in one operation\'s data with 413, and stays up', async () => {
    const body = around(`[${'[],'.repeat((16 * 1024 * 1024) / 3 - 30)}[]]`);
    const res = await postBatch(port, body);
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ code: 'payload_too_large' });
    await stillUp();
  }, 60_000);

  it('refuses the same just under the byte limit (413 too_many_values) and nesting (400 too_deep)', async () => {
    const wide = await postBatch(port, around(`[${'[],'.repeat((11 * 1024 * 1024) / 3)}[]]`));
    expect([wide.status, wide.json.code]).toEqual([413, 'too_many_values']);
    await stillUp();
    const depth = 5 * 1024 * 1024;
    const deep = await postBatch(port, around(`${'['.repeat(depth)}${']'.repeat(depth)}`));
    expect([deep.status, deep.json.code]).toEqual([400, 'too_deep']);
    await stillUp();
  }, 60_000);

  it('still takes the bridge\'s largest real batch: 500 reviews of 20,000 characters', async () => {
    const res = await postBatch(port, Buffer.from(JSON.stringify({ operations: reviewOperations(500) })));
    expect(res.status).toBe(200);
    expect(res.json.results.filter((r: { status: number }) => r.status === 201)).toHaveLength(500);
    await stillUp();
  }, 60_000);
});
