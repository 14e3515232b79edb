// A batch of successes whose write is cut off by a lost connection (a failover, pg_terminate_backend) is written
// again, so the receiver does not get those deliveries a second time after their leases expire; and a retry that
// finds the lost write had committed after all is done, not an error.
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import { createLogger } from '../../../src/log.js';
import { newId } from '../../../src/ids.js';
import type { Waypost } from '../../../src/sdk.js';
import { deliveryQueue, type DeliveryQueue } from '../../../src/webhooks/delivery/queue/index.js';
import { SuccessBatch } from '../../../src/webhooks/delivery/success-batch.js';
import { addWebhook } from './fixtures.js';

/** What PostgreSQL says to a backend pg_terminate_backend ended. */
const terminated = () => Object.assign(new Error('terminating connection due to administrator command'),
  { code: '57P01' });

describe.each(DIALECTS)('success batch after a lost connection (%s)', (dialect) => {
  let wp: Waypost | null = null;
  afterEach(async () => { await wp?.close(); wp = null; });

  /** A Waypost with one leased delivery, its log lines, and a success of that delivery to record. */
  async function setup() {
    const lines: Array<{ level: number; msg: string }> = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as never);
        cb();
      },
    });
    wp = await testWaypost({ dialect, logger: createLogger('warn', stream), config: { claimRetryMs: 5 } });
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook', { events: ['enquiry.created'] });
    await wp.put('enquiries', 1, { full_name: 'Ana Silva', email: 'ana@example.com' });
    const queue = deliveryQueue(wp.core);
    const now = Date.now();
    const [claimed] = await queue.claim({ owner: 'wrk_test', limit: 1, now, leaseMs: 60_000, skipWebhooks: [] });
    const attempt = {
      id: newId('att', now), delivery_id: claimed.id, attempt: 1, started_at: new Date(now).toISOString(),
      duration_ms: 3, request_url: 'http://127.0.0.1:9/hook', request_headers: '{}', request_body: '{}',
      response_status: 200, response_headers: '{}', response_body: 'ok', error: null, success: 1,
    };
    const state = async () => {
      const d = await wp!.core.db.selectFrom('deliveries').select(['status', 'lease_owner'])
        .where('id', '=', claimed.id).executeTakeFirstOrThrow();
      const rows = await wp!.core.db.selectFrom('delivery_attempts').select('id')
        .where('delivery_id', '=', claimed.id).execute();
      return { status: d.status, leased: d.lease_owner !== null, attempts: rows.length };
    };
    return { queue, attempt, state, lines, now: new Date(now).toISOString(), webhookId: claimed.webhookId };
  }

  it('writes the batch again when the connection dropped before it committed', async () => {
    const { queue, attempt, state, lines, now, webhookId } = await setup();
    let calls = 0;
    const flaky: DeliveryQueue = Object.assign(Object.create(queue) as DeliveryQueue, {
      recordSuccesses: async (items: Parameters<DeliveryQueue['recordSuccesses']>[0]) => {
        if (++calls === 1) throw terminated();
        return queue.recordSuccesses(items);
      },
    });
    const batch = new SuccessBatch(wp!.core, flaky);
    batch.record(attempt, now, webhookId);
    await batch.idle();
    expect(calls).toBe(2);
    // Recorded: no worker will claim it again and send it twice.
    expect(await state()).toEqual({ status: 'succeeded', leased: false, attempts: 1 });
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.filter((l) => l.msg.includes('trying again'))).toHaveLength(1);
  });

  it('is done when the lost write had committed (the retry finds its attempt rows)', async () => {
    const { queue, attempt, state, lines, now, webhookId } = await setup();
    let calls = 0;
    const answerLost: DeliveryQueue = Object.assign(Object.create(queue) as DeliveryQueue, {
      recordSuccesses: async (items: Parameters<DeliveryQueue['recordSuccesses']>[0]) => {
        await queue.recordSuccesses(items); // the second time: refused, the attempt row exists
        if (++calls === 1) throw terminated();
      },
    });
    const batch = new SuccessBatch(wp!.core, answerLost);
    batch.record(attempt, now, webhookId);
    await batch.idle();
    expect(await state()).toEqual({ status: 'succeeded', leased: false, attempts: 1 });
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('gives up after a few tries and leaves the delivery to its lease', async () => {
    const { queue, attempt, state, lines, now, webhookId } = await setup();
    let calls = 0;
    const down: DeliveryQueue = Object.assign(Object.create(queue) as DeliveryQueue, {
      recordSuccesses: async () => { calls++; throw terminated(); },
    });
    const batch = new SuccessBatch(wp!.core, down);
    batch.record(attempt, now, webhookId);
    await batch.idle();
    expect(calls).toBe(5);
    expect(await state()).toEqual({ status: 'pending', leased: true, attempts: 0 });
    expect(lines.filter((l) => l.msg.includes('could not record successful deliveries'))).toHaveLength(1);
  });
});
