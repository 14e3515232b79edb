// Starting a recover reads no deliveries: POST …/recover answers 202 at once with `total: null`, and the job counts
// its total afterwards in chunks of COUNT_CHUNK ids, each statement bounded by a LIMIT (one count over every match
// took 1.1 s at 50,000 on PostgreSQL before the POST could answer). On PostgreSQL the POST answers even while another
// transaction holds the deliveries table locked against every read.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Kysely, KyselyPlugin } from 'kysely';
import pg from 'pg';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import type { Database } from '../../../src/store/tables.js';
import { COUNT_CHUNK } from '../../../src/webhooks/recover/run.js';
import { adminHeaders } from '../manage/fixtures.js';
import { seedFailed, waitForJob } from './fixtures.js';

describe.each(DIALECTS)('starting a recover on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let auth: Record<string, string>;
  const since = new Date(Date.now() - 60_000).toISOString();

  beforeEach(async () => {
    wp = await testWaypost({ dialect });
    app = await wp.app();
    auth = await adminHeaders(wp);
  });
  afterEach(async () => {
    await wp.close();
  });

  const webhook = async () => (await app.inject({ method: 'POST', url: '/admin/api/webhooks', headers: auth,
    payload: { name: 'CRM', url: 'http://127.0.0.1:9/in', events: ['booking.created'] } })).json().id as string;
  const start = (hookId: string) => app.inject({ method: 'POST', url: `/admin/api/webhooks/${hookId}/recover`,
    headers: auth, payload: { since } });

  it('answers before counting, then counts the matches in bounded chunks', { timeout: 120_000 }, async () => {
    const hookId = await webhook();
    const n = 2 * COUNT_CHUNK + 10; // three chunks of failed ones, then one (empty) of cancelled ones
    await seedFailed(wp, hookId, n, since);
    // Every statement this process runs from here on, as SQL.
    const statements: string[] = [];
    const executor = wp.core.db.getExecutor();
    const recorder: KyselyPlugin = {
      transformQuery: ({ node, queryId }) => {
        statements.push(executor.compileQuery(node, queryId).sql);
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    (wp.core as { db: Kysely<Database> }).db = wp.core.db.withPlugin(recorder);

    const res = await start(hookId);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ status: 'running', total: null, queued: 0 }); // not counted yet
    expect(await waitForJob(app, auth, hookId, res.json().id)).toMatchObject({ status: 'done', total: n, queued: n });
    const counts = statements.filter((s) => /\bcount\(/i.test(s) && /from "deliveries"/i.test(s));
    expect(counts).toHaveLength(4);
    for (const s of counts) expect(s).toMatch(/\blimit\b/i);
  });

  it.runIf(dialect === 'postgres')('answers while deliveries are locked against reads', async () => {
    const hookId = await webhook();
    await seedFailed(wp, hookId, 50, since);
    const locker = new pg.Client({ connectionString: wp.core.config.databaseUrl });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE deliveries IN ACCESS EXCLUSIVE MODE');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'blocked'>((resolve) => { timer = setTimeout(() => resolve('blocked'), 5_000); });
      const res = await Promise.race([start(hookId), late]).finally(() => clearTimeout(timer));
      expect(res).not.toBe('blocked');
      if (res === 'blocked') return;
      expect(res.statusCode, res.body).toBe(202);
      const url = `/admin/api/webhooks/${hookId}/recover/${res.json().id}`;
      // The job waits for the lock to count; any process can say so meanwhile.
      expect((await app.inject({ method: 'GET', url, headers: auth })).json())
        .toMatchObject({ status: 'running', total: null, queued: 0 });
      await locker.query('COMMIT');
      expect(await waitForJob(app, auth, hookId, res.json().id))
        .toMatchObject({ status: 'done', total: 50, queued: 50 });
    } finally {
      await locker.end();
    }
  });
});
