// What the CLI says, read as a person reads it: a failed attempt names its status once, and `waypost --help` loads
// none of the server (it was most of a cold start's time: the HTTP framework, both database drivers, Redis, SMTP).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../console/receiver.js';
import { runCli, runCliJson, tempSqliteUrl } from './run.js';
import { BATCH_SIZE_HELP } from '../../src/cli/commands/import.js';
import { DEFAULT_BATCH_SIZE } from '../../src/store/bulk-schema.js';

const sh = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;

describe('CLI messages', { timeout: 120_000 }, () => {
  const env = { DATABASE_URL: tempSqliteUrl(), WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' };
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.respondWith(500);
  });
  afterAll(async () => receiver?.close());

  it('names a failed answer\'s status once in `deliveries show`', async () => {
    const hook = await runCliJson(['webhooks', 'create', '--name', 'CRM', '--url', receiver.url, '--events', 'all'],
      env);
    const test = await runCli(['webhooks', 'test', hook.id, '--json'], env);
    const { delivery_id: id } = JSON.parse(test.stdout) as { delivery_id: string };
    const shown = await runCli(['deliveries', 'show', id], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^#1 \S+ \d+ ms failed: HTTP 500: expected 200$/m);
    expect(shown.stdout).not.toContain('HTTP 500 HTTP 500');
  });

  it('says in `import --help` the batch sizes an import uses (without loading the store to say it)', async () => {
    expect(BATCH_SIZE_HELP).toEqual(DEFAULT_BATCH_SIZE);
    const help = await runCli(['import', '--help'], {});
    expect(help.stdout.replace(/\s+/g, ' '))
      .toContain('lines per transaction (default 2000 on SQLite, 500 on PostgreSQL)');
  });

  it('loads none of the server for `waypost --help` or a command\'s help', async () => {
    const script = join(ROOT, 'test/cli/help-imports.ts');
    for (const args of [[], ['webhooks', '--help'], ['serve', '--help']]) {
      const { stdout } = await sh(join(ROOT, 'node_modules/.bin/tsx'), [script, ...args], { cwd: ROOT });
      const { code, packages } = JSON.parse(stdout) as { code: number; packages: string[] };
      expect(code).toBe(0);
      for (const heavy of ['fastify', 'pg', 'better-sqlite3', 'ioredis', 'nodemailer', 'undici', 'prom-client']) {
        expect(packages, `${heavy} loaded for waypost ${args.join(' ')}`).not.toContain(heavy);
      }
    }
  });
});
