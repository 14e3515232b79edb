// A recover is a job run in short transactions: host writes are not held up while thousands of deliveries are
// queued, its progress is a row another process (a second Waypost on the same database) answers for, and a recover
// stopped half-way shows as interrupted and is finished, without duplicates, by running it again.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import { createWaypost, type Waypost } from '../../../src/sdk.js';
import { createLogger } from '../../../src/log.js';
import { adminHeaders } from '../manage/fixtures.js';
import { booking } from '../engine/fixtures.js';
import { seedFailed, waitForJob } from './fixtures.js';

describe.each(DIALECTS)('recover jobs on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let auth: Record<string, string>;
  let others: Waypost[] = [];
  const since = new Date(Date.now() - 60_000).toISOString();

  beforeEach(async () => {
    wp = await testWaypost({ dialect });
    app = await wp.app();
    auth = await adminHeaders(wp);
  });
  afterEach(async () => {
    for (const o of others) await o.close();
    others = [];
    await wp.close();
  });

  /** Another Waypost process on the same database, with its own clock. */
  async function another(now: () => number = Date.now): Promise<{ wp: Waypost; app: FastifyInstance }> {
    const other = await createWaypost({
      env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' }, logger: createLogger('silent'), clock: { now },
      config: { databaseUrl: wp.core.config.databaseUrl },
    });
    others.push(other);
    return { wp: other, app: await other.app() };
  }
  const webhook = async () => (await app.inject({ method: 'POST', url: '/admin/api/webhooks', headers: auth,
    payload: { name: 'CRM', url: 'http://127.0.0.1:9/in', events: ['booking.created'] } })).json().id as string;
  const start = async (on: FastifyInstance, hookId: string) => {
    const url = `/admin/api/webhooks/${hookId}/recover`;
    const res = await on.inject({ method: 'POST', url, headers: auth, payload: { since } });
    expect(res.statusCode, res.body).toBe(202);
    return res.json();
  };
  const pendingRedeliveries = async () => (await wp.core.db.selectFrom('deliveries').select('redelivery_of')
    .where('status', '=', 'pending').where('redelivery_of', 'is not', null).execute()).map((r) => r.redelivery_of);

  it('lets a host write through while 12,000 deliveries are being recovered', { timeout: 120_000 }, async () => {
    const hookId = await webhook();
    const n = 12_000;
    await seedFailed(wp, hookId, n, since);
    const job = await start(app, hookId);
    expect(job).toMatchObject({ // answered at once: the job counts its total afterwards
      status: 'running', total: null, queued: 0, webhook_id: hookId, statuses: ['failed', 'cancelled'] });

    await wp.put('bookings', 9001, booking()); // one transaction over all 12,000 held this back until the end
    const url = `/admin/api/webhooks/${hookId}/recover/${job.id}`;
    const during = (await app.inject({ method: 'GET', url, headers: auth })).json();
    expect(during.status).toBe('running');
    expect(during.queued).toBeLessThan(n);

    expect(await waitForJob(app, auth, hookId, job.id)).toMatchObject({ status: 'done', total: n, queued: n });
    expect(new Set(await pendingRedeliveries()).size).toBe(n);
  });

  it('answers from another process that a stopped recover was interrupted, and finishes the rest when run again',
    { timeout: 120_000 }, async () => {
      const hookId = await webhook();
      const n = 20_000;
      const seeded = await seedFailed(wp, hookId, n, since);
      const job = await start(app, hookId);
      await wp.close(); // the first process stops half-way (after the batch under way)
      const url = `/admin/api/webhooks/${hookId}/recover/${job.id}`;
      const { app: otherApp } = await another();
      const stopped = (await otherApp.inject({ method: 'GET', url, headers: auth })).json();
      expect(stopped.status).toBe('interrupted');
      expect(stopped.queued).toBeLessThan(n);
      wp = others.shift()!; // the second process from here on (afterEach closes it)
      expect(await pendingRedeliveries()).toHaveLength(stopped.queued); // progress commits with its batch

      const again = await start(otherApp, hookId);
      expect(await waitForJob(otherApp, auth, hookId, again.id)) // the rest, counted as it started
        .toMatchObject({ status: 'done', total: n - stopped.queued, queued: n - stopped.queued });
      expect((await pendingRedeliveries()).sort()).toEqual([...seeded].sort());
    });

  it('stops as failed, saying why, when the webhook is disabled during the recover', { timeout: 120_000 }, async () => {
    const hookId = await webhook();
    const n = 20_000;
    await seedFailed(wp, hookId, n, since);
    const job = await start(app, hookId);
    await app.inject({ method: 'POST', url: `/admin/api/webhooks/${hookId}/disable`, headers: auth });
    const ended = await waitForJob(app, auth, hookId, job.id);
    expect(ended.status).toBe('failed');
    expect(ended.error).toMatch(/is disabled\. Re-enable it first/);
    expect(ended.queued).toBeLessThan(n);
    // What it queued before the disable was cancelled with the webhook's other pending deliveries.
    expect(await pendingRedeliveries()).toHaveLength(0);
  });

  it('reads a job as interrupted once its lease ran out (its process died without a word)', async () => {
    const hookId = await webhook();
    await seedFailed(wp, hookId, 10, since);
    const job = await start(app, hookId);
    await waitForJob(app, auth, hookId, job.id);
    // A process that died leaves its job `running`; then nobody renews the lease.
    await wp.core.db.updateTable('recover_jobs').set({ status: 'running', finished_at: null }).execute();
    const url = `/admin/api/webhooks/${hookId}/recover/${job.id}`;
    expect((await app.inject({ method: 'GET', url, headers: auth })).json().status).toBe('running');
    const { app: later } = await another(() => Date.now() + 31_000);
    expect((await later.inject({ method: 'GET', url, headers: auth })).json().status).toBe('interrupted');
  });
});
