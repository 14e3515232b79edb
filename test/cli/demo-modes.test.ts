// Where `waypost demo` writes: a database of its own by default (never DATABASE_URL's), DATABASE_URL's with --into
// only while it holds no site's records, and --remove takes the demo out of DATABASE_URL's database again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { runCli, runCliJson, tempDir, tempSqliteUrl } from './run.js';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;

async function open(databaseUrl: string): Promise<Waypost> {
  return createWaypost({ env: { DATABASE_URL: databaseUrl }, config: { port: 0, host: '127.0.0.1' },
    logger: createLogger('silent') });
}

const customers = async (databaseUrl: string) => {
  const wp = await open(databaseUrl);
  try {
    return (await wp.core.db.selectFrom('customers').select('id').orderBy('id').execute()).map((c) => c.id);
  } finally {
    await wp.close();
  }
};

describe('waypost demo: where the demo goes', () => {
  let site: Waypost;
  let siteUrl: string;
  const SITE_DB = tempSqliteUrl();

  beforeAll(async () => {
    // A server on the site's database, with one record of the site's in it.
    site = await open(SITE_DB);
    await site.put('customers', 29, { email: 'twenty.nine@real-agency.test', first_name: 'Site' });
    siteUrl = (await site.serve('api')).url!;
  });
  afterAll(async () => site?.close());

  it('seeds ./data/demo.db by default, not DATABASE_URL\'s database', async () => {
    const cwd = tempDir();
    const { stdout } = await run(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'src/cli/main.ts'), 'demo', '--json'],
      { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: SITE_DB, LOG_LEVEL: 'warn',
        PORT: '9' } });
    const out = JSON.parse(stdout);
    expect(out.database).toBe('sqlite:./data/demo.db');
    expect(out.start_command).toBe('DATABASE_URL=sqlite:./data/demo.db PORT=9 npm start');
    expect(existsSync(join(cwd, 'data/demo.db'))).toBe(true);
    expect(await customers(SITE_DB)).toEqual([29]); // the site's database holds its own customer only
    expect((await customers(`sqlite:${join(cwd, 'data/demo.db')}`)).length).toBe(80);
  }, 60_000);

  it('says when the server at the base URL reads another database than the demo\'s', async () => {
    const demoDb = tempSqliteUrl();
    const result = await runCli(['demo', '--database', demoDb], { DATABASE_URL: SITE_DB, WAYPOST_BASE_URL: siteUrl });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`The server at ${siteUrl} reads another database`);
    expect(result.stdout).toContain(`DATABASE_URL=${demoDb} WAYPOST_BASE_URL=${siteUrl} npm start`);
  }, 60_000);

  it('refuses --into a database holding a site\'s records, with a clear message', async () => {
    const result = await runCli(['demo', '--into'], { DATABASE_URL: SITE_DB });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('This database holds a site\'s records (customers 29 is not the demo\'s)');
    expect(await customers(SITE_DB)).toEqual([29]);
    const both = await runCli(['demo', '--into', '--database', tempSqliteUrl()], { DATABASE_URL: SITE_DB });
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('give --into or --database, not both');
  }, 60_000);

  it('seeds --into an empty DATABASE_URL, and --remove takes every demo record and its key out again', async () => {
    const DATABASE_URL = tempSqliteUrl();
    const seeded = await runCliJson(['demo', '--into'], { DATABASE_URL });
    expect(seeded.database).toBe(DATABASE_URL);
    expect((await customers(DATABASE_URL)).length).toBe(80);
    const removed = await runCliJson(['demo', '--remove'], { DATABASE_URL });
    expect(removed.removed).toMatchObject({ records: { trips: 12, customers: 80, bookings: 200, reviews: 40 },
      api_keys: 1 });
    expect(await customers(DATABASE_URL)).toEqual([]);
    const human = await runCli(['demo', '--remove'], { DATABASE_URL });
    expect(human.stdout.trim()).toBe(`No demo in ${DATABASE_URL}: nothing removed.`);
  }, 90_000);
});
