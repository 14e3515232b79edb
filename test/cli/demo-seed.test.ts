import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { demoCatalogue } from '../../src/demo/catalogue.js';
import { seedDemo } from '../../src/demo/seed.js';
import { createWebhook } from '../../src/webhooks/manage.js';
import { isCompleteCart, isLegacyEngine } from '../../src/records/normalize.js';

describe('the demo catalogue', () => {
  const catalogue = demoCatalogue();

  it('is the same on every run', () => {
    expect(demoCatalogue()).toEqual(catalogue);
  });

  it('has consistent money: line items add up, paid plus due is the total, payments match their booking', () => {
    for (const { data: b } of catalogue.bookings) {
      const items = b.trips!.flatMap((t) => t.line_items!);
      expect(items.reduce((s, li) => s + Number(li.total), 0)).toBeCloseTo(Number(b.total_amount), 2);
      expect(Number(b.paid_amount) + Number(b.due_amount!)).toBeCloseTo(Number(b.total_amount), 2);
    }
    const byId = new Map(catalogue.bookings.map((b) => [b.id, b.data]));
    for (const { data: p } of catalogue.payments) {
      const booking = byId.get(p.booking_id)!;
      expect(p.currency).toBe(booking.currency);
    }
    const completedByBooking = new Map<number, number>();
    for (const { data: p } of catalogue.payments) if (p.status === 'completed') completedByBooking.set(p.booking_id,
      (completedByBooking.get(p.booking_id) ?? 0) + Number(p.amount));
    for (const [id, paid] of completedByBooking) expect(paid).toBeCloseTo(Number(byId.get(id)!.paid_amount), 2);
  });

  it('has every booking status, legacy and cart 3.0 bookings, and due payments', () => {
    expect(new Set(catalogue.bookings.map((b) => b.data.status)))
      .toEqual(new Set(['pending', 'booked', 'reserved', 'completed', 'canceled']));
    expect(catalogue.bookings.filter((b) => isLegacyEngine(b.data.engine_version))).toHaveLength(8);
    expect(catalogue.bookings.filter((b) => !isCompleteCart(b.data.cart_version)).length).toBeGreaterThanOrEqual(10);
    expect(catalogue.payments.some((p) => p.data.is_due_payment && p.data.status === 'completed')).toBe(true);
    expect(catalogue.payments.some((p) => p.data.is_due_payment && p.data.status === 'pending')).toBe(true);
    expect(catalogue.customers.every((c) => c.data.email.endsWith('@example.com'))).toBe(true);
  });
});

describe.each(DIALECTS)('seeding the demo on %s', (dialect) => {
  let wp: Waypost;
  beforeEach(async () => { wp = await testWaypost({ dialect }); });
  afterEach(async () => wp.close());

  it('goes through the normal write path (events fire) and a second run changes nothing', async () => {
    // A subscriber (the worker is not running, so its deliveries just wait in the outbox).
    await createWebhook(wp.core, { name: 'demo watcher', url: 'http://127.0.0.1:9/hook', events: ['booking.created'] });
    const seen: string[] = [];
    wp.core.writeListeners.push(async (_trx, change) => { seen.push(`${change.resource}/${change.id}`); });
    const first = await seedDemo(wp.core);
    expect(first.bookings).toEqual({ created: 200, changed: 0, unchanged: 0 });
    expect(first.trips.created).toBe(12);
    expect(seen).toContain('bookings/1001');
    expect(seen).toHaveLength(Object.values(first).reduce((s, r) => s + r.created, 0));
    const queued = () => wp.core.db.selectFrom('deliveries').select((eb) => eb.fn.countAll().as('n'))
      .where('event_type', '=', 'booking.created').executeTakeFirstOrThrow().then((r) => Number(r.n));
    const legacy = demoCatalogue().bookings.filter((b) => isLegacyEngine(b.data.engine_version)).length;
    expect(await queued()).toBe(200 - legacy); // legacy bookings fire nothing

    seen.length = 0;
    const second = await seedDemo(wp.core);
    expect(Object.values(second).every((r) => r.created === 0 && r.changed === 0)).toBe(true);
    expect(seen).toEqual([]);
    expect(await queued()).toBe(200 - legacy);
  }, 60_000);
});
