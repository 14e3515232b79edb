import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { createWebhook } from '../../../src/webhooks/manage.js';
import { pruneDeliveryLog, retentionDays, startRetention } from '../../../src/webhooks/retention.js';
import { adminHeaders, fakeClock, seedDelivery } from './fixtures.js';

const DAY = 86_400_000;

describe.each(DIALECTS)('delivery log retention on %s', (dialect) => {
  let wp: Waypost;
  const clock = fakeClock();

  beforeEach(async () => {
    clock.set(Date.parse('2026-01-01T00:00:00Z'));
    wp = await testWaypost({ dialect, clock, config: { logRetentionDays: 30 } });
  });
  afterEach(async () => wp.close());

  const ids = async (table: 'deliveries' | 'events' | 'alerts' | 'delivery_attempts') =>
    (await wp.core.db.selectFrom(table).select('id').execute()).map((r) => r.id).sort();

  async function addAttempt(deliveryId: string) {
    await wp.core.db.insertInto('delivery_attempts').values({
      id: `att_${deliveryId}`, delivery_id: deliveryId, attempt: 1, started_at: new Date(clock.now()).toISOString(),
        duration_ms: 5,
      request_url: 'https://example.com', request_headers: '{}', request_body: '{}', response_status: 200,
        response_headers: '{}', response_body: 'ok', error: null, success: 1,
    }).execute();
  }

  async function addAlert(id: string, webhookId: string) {
    await wp.core.db.insertInto('alerts')
      .values({ id, webhook_id: webhookId, delivery_id: null, level: 'warning', recipient: null, subject: 's',
      body: 'b', status: 'stored', error: null, created_at: new Date(clock.now()).toISOString() }).execute();
  }

  it('deletes finished deliveries, their attempts, unreferenced events and alerts older than the retention; '
    + 'keeps pending ones', async () => {
    const hook = await createWebhook(wp.core, { name: 'CRM', url: 'https://example.com/h',
      events: ['booking.created'] });
    const oldDone = await seedDelivery(wp, hook.id, 'booking.created', 'succeeded');
    const oldFailed = await seedDelivery(wp, hook.id, 'booking.created', 'failed');
    const oldPending = await seedDelivery(wp, hook.id, 'booking.created');
    await addAttempt(oldDone.deliveryId);
    await addAttempt(oldFailed.deliveryId);
    await addAlert('alt_old', hook.id);

    clock.advance(20 * DAY);
    const recent = await seedDelivery(wp, hook.id, 'booking.created', 'succeeded');
    await addAttempt(recent.deliveryId);
    await addAlert('alt_recent', hook.id);

    clock.advance(15 * DAY); // the first batch is now 35 days old, the second 15
    const result = await pruneDeliveryLog(wp.core);
    expect(result)
      .toMatchObject({ deliveries: 2, attempts: 2, events: 2, alerts: 1, cutoff: new Date(clock.now() - 30 * DAY)
      .toISOString() });
    expect(await ids('deliveries')).toEqual([oldPending.deliveryId, recent.deliveryId].sort());
    expect(await ids('delivery_attempts')).toEqual([`att_${recent.deliveryId}`]);
    // a pending delivery keeps its event
    expect(await ids('events')).toEqual([oldPending.eventId, recent.eventId].sort());
    expect(await ids('alerts')).toEqual(['alt_recent']);

    const again = await pruneDeliveryLog(wp.core);
    expect(again).toMatchObject({ deliveries: 0, attempts: 0, events: 0, alerts: 0 });
  });

  it('follows the log_retention_days setting, falling back to the configuration for a bad value', async () => {
    const hook = await createWebhook(wp.core, { name: 'CRM', url: 'https://example.com/h',
      events: ['booking.created'] });
    const old = await seedDelivery(wp, hook.id, 'booking.created', 'succeeded');
    clock.advance(10 * DAY);
    expect(await retentionDays(wp.core)).toBe(30);
    expect((await pruneDeliveryLog(wp.core)).deliveries).toBe(0);

    await wp.core.db.insertInto('settings').values({ name: 'log_retention_days', value: 'soon' }).execute();
    expect(await retentionDays(wp.core)).toBe(30);
    // The console's settings API sets it.
    const app = await wp.app();
    const auth = await adminHeaders(wp);
    const put = await app.inject({ method: 'PUT', url: '/admin/api/settings', headers: auth,
      payload: { log_retention_days: 7 } });
    expect(put.statusCode).toBe(200);
    expect(await retentionDays(wp.core)).toBe(7);
    expect((await pruneDeliveryLog(wp.core)).deliveries).toBe(1);
    expect(await ids('deliveries')).not.toContain(old.deliveryId);
  });

  it('startRetention prunes right away and stops cleanly', async () => {
    const hook = await createWebhook(wp.core, { name: 'CRM', url: 'https://example.com/h',
      events: ['booking.created'] });
    await seedDelivery(wp, hook.id, 'booking.created', 'cancelled');
    clock.advance(31 * DAY);
    const retention = startRetention(wp.core, 60_000);
    await retention.stop(); // waits for the prune in progress
    expect(await ids('deliveries')).toEqual([]);
  });

  it('a worker process prunes the log when it starts (serve --role worker)', async () => {
    const hook = await createWebhook(wp.core, { name: 'CRM', url: 'https://example.com/h',
      events: ['booking.created'] });
    await seedDelivery(wp, hook.id, 'booking.created', 'succeeded');
    clock.advance(31 * DAY);
    await wp.serve('worker');
    await expect.poll(() => ids('deliveries'), { timeout: 5000 }).toEqual([]);
  });
});
