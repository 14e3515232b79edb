// Events have the feed's own retention (WAYPOST_EVENT_RETENTION_DAYS), not the delivery log's: a shorter log
// retention no longer takes the events with it, and an event a delivery row still refers to stays while that row does.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { createWebhook } from '../../src/webhooks/manage.js';
import { pruneDeliveryLog } from '../../src/webhooks/retention.js';
import { fakeClock, seedDelivery } from '../webhooks/manage/fixtures.js';

const DAY = 86_400_000;

describe.each(DIALECTS)('event retention on %s', (dialect) => {
  let wp: Waypost;
  const clock = fakeClock();
  beforeEach(async () => {
    clock.set(Date.parse('2026-01-01T00:00:00Z'));
    wp = await testWaypost({ dialect, clock, config: { logRetentionDays: 7, eventRetentionDays: 30 } });
  });
  afterEach(async () => wp.close());

  const eventIds = async () => (await wp.core.db.selectFrom('events').select('id').orderBy('id').execute())
    .map((r) => r.id);

  it('keeps events for the feed\'s retention after their deliveries are pruned, and while a delivery refers to one',
    async () => {
    const hook = await createWebhook(wp.core, { name: 'CRM', url: 'https://example.com/h',
      events: ['booking.created'] });
    const done = await seedDelivery(wp, hook.id, 'booking.created', 'succeeded');
    const pending = await seedDelivery(wp, hook.id, 'booking.created');
    await wp.put('enquiries', 1, { full_name: 'Cy', email: 'cy@example.com' });
    const all = await eventIds();
    expect(all).toHaveLength(3);

    clock.advance(10 * DAY); // past the log's 7 days: the finished delivery goes, its event stays
    expect(await pruneDeliveryLog(wp.core)).toMatchObject({ deliveries: 1, events: 0 });
    expect(await eventIds()).toEqual(all);

    clock.advance(21 * DAY); // 31 days: every event is past the feed's retention; the pending delivery keeps its own
    expect((await pruneDeliveryLog(wp.core)).events).toBe(2);
    expect(await eventIds()).toEqual([pending.eventId]);
    expect(all).toContain(done.eventId);
  });
});
