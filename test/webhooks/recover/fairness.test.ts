// Recovering thousands of deliveries to one webhook must not starve the others: the worker's per-webhook caps
// (backlog.ts: claims pass over a webhook holding heldRounds × perWebhookConcurrency) let a second webhook's new
// delivery go out while the first one's recovered backlog is still draining to its slow receiver.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { startWorker, type Worker } from '../../../src/webhooks/index.js';
import { adminHeaders } from '../manage/fixtures.js';
import { booking } from '../engine/fixtures.js';
import { startReceiver, type Receiver } from '../engine/receiver.js';
import { seedFailed, waitForJob } from './fixtures.js';

describe.each(DIALECTS)('recover beside other webhooks on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let auth: Record<string, string>;
  let slow: Receiver;
  let fast: Receiver;
  let worker: Worker | null = null;

  beforeEach(async () => {
    // The recovered webhook's receiver takes 20 ms per request: 2,000 at 4 at once drain for 10 s or more.
    slow = await startReceiver(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 20));
      res.writeHead(200).end('ok');
    });
    fast = await startReceiver();
    wp = await testWaypost({ dialect, config: { perWebhookConcurrency: 4, deliveryConcurrency: 16 } });
    app = await wp.app();
    auth = await adminHeaders(wp);
  });
  afterEach(async () => {
    await worker?.stop();
    worker = null;
    await wp.close();
    await Promise.all([slow.close(), fast.close()]);
  });

  const create = async (name: string, url: string, events: string[]) => (await app.inject({
    method: 'POST', url: '/admin/api/webhooks', headers: auth, payload: { name, url, events } })).json().id as string;

  it('delivers a second webhook\'s new event while 2,000 recovered deliveries drain to the first', { timeout: 120_000 },
    async () => {
      const n = 2_000;
      const recovered = await create('Recovered', slow.url, ['customer.created']);
      await create('Other', fast.url, ['booking.created']);
      const since = new Date(Date.now() - 60_000).toISOString();
      await seedFailed(wp, recovered, n, since);
      worker = await startWorker(wp.core);
      const job = (await app.inject({ method: 'POST', url: `/admin/api/webhooks/${recovered}/recover`, headers: auth,
        payload: { since } })).json();
      expect(await waitForJob(app, auth, recovered, job.id)).toMatchObject({ status: 'done', queued: n });
      await slow.waitFor(50, 30_000); // the backlog is draining

      await wp.put('bookings', 1042, booking());
      await fast.waitFor(1, 30_000);
      const slowSoFar = slow.requests.length;
      expect(slowSoFar).toBeLessThan(n); // it did not wait behind the 2,000

      await slow.waitFor(n, 90_000);
      const ids = slow.requests.map((r) => r.headers['x-waypost-delivery']);
      expect(new Set(ids).size).toBe(n); // each recovered once
      expect(fast.requests).toHaveLength(1);
    });
});
