import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openStore } from '../../src/store/db.js';
import { readdirSync } from 'node:fs';
import { runCli, runCliProcess, tempSqliteUrl } from './run.js';

const MIGRATION_FILES = readdirSync(new URL('../../src/store/migrations/', import.meta.url))
  .filter((f) => f.endsWith('.ts')).map((f) => f.replace(/\.ts$/, '')).sort();

describe('waypost migrate', () => {
  it('creates the schema in a new database and can be run again', async () => {
    const DATABASE_URL = tempSqliteUrl();
    const first = await runCli(['migrate'], { DATABASE_URL });
    expect(first.code, first.stderr).toBe(0);
    const store = openStore(DATABASE_URL);
    try {
      const applied = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(store.db);
      expect(applied.rows.map((r) => r.name)).toEqual(MIGRATION_FILES);
      await store.db.selectFrom('bookings').select('id').execute(); // the tables are there
    } finally {
      await store.close();
    }
    const second = await runCli(['migrate'], { DATABASE_URL });
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toBe('database is up to date');
  });
});

describe('waypost host-token', () => {
  // As real processes: the token alone on stdout through a pipe, as `$(waypost host-token)` reads it, and --json.
  it('generates a token and prints it that once (only its hash is kept)', async () => {
    const DATABASE_URL = tempSqliteUrl();
    const first = await runCliProcess(['host-token'], { DATABASE_URL });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim()).toMatch(/^wph_[\w-]{32}$/);
    const json = await runCliProcess(['host-token', '--json'], { DATABASE_URL });
    expect(JSON.parse(json.stdout)).toEqual({ token: null, status: 'exists' });
  });

  it('prints WAYPOST_HOST_TOKEN when it is set', async () => {
    const run = await runCli(['host-token'],
      { DATABASE_URL: tempSqliteUrl(), WAYPOST_HOST_TOKEN: 'from-the-environment' });
    expect(run.stdout.trim()).toBe('from-the-environment');
  });
});

describe('configuration is validated at start', () => {
  it.each([
    ['serve', { PORT: 'abc' }, 'PORT'],
    ['serve', { DATABASE_URL: 'mysql://db/waypost' }, 'DATABASE_URL'],
    ['host-token', { WAYPOST_RETRY_DELAYS_MS: '1,2,3' }, 'WAYPOST_RETRY_DELAYS_MS'],
    ['demo', { REDIS_URL: 'http://127.0.0.1:6379' }, 'REDIS_URL'],
    ['migrate', { WAYPOST_ALLOW_PRIVATE_TARGETS: 'maybe' }, 'WAYPOST_ALLOW_PRIVATE_TARGETS'],
    ['import missing.ndjson', { LOG_LEVEL: 'verbose' }, 'LOG_LEVEL'],
    ['serve', { HOST: 'bad host' }, 'HOST'],
  ])('%s with %o stops with a message naming %s', async (command, env, variable) => {
    const run = await runCli(command.split(' '), { DATABASE_URL: tempSqliteUrl(), ...env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`waypost: invalid configuration: ${variable}:`);
    expect(run.stdout).toBe('');
  });
});
