// The bridge's forwarding of a WP Travel Engine checkout (test/bridge/forwarding-site.ts builds the world: a real
// WordPress with the WP Travel Engine 6.8.0 fixture, a real Waypost behind a recording TCP front, a real webhook
// receiver): each record sent once, complete, at the end of the request; admin edits, trash and reviews.
//
// WP Travel Engine is not installed: a test mu-plugin (checkout-plugin.php) replays its checkout write order
// (BookingProcess, see shared/fixtures/wp-travel-engine/README.md "When the data is complete") over HTTP, copying a
// fixture booking's meta: an empty booking post published first (save_post fires), then its meta, a customer, a
// payment post published before its meta, the gateway marking it paid, and the completion hook, then a redirect.
import { describe, expect, it } from 'vitest';
import { forwardingSuite, median, TIMEOUT_MS } from './forwarding-site.js';
import { hasWordPress } from './wordpress.js';

describe.runIf(await hasWordPress())('WordPress bridge: forwarding a WP Travel Engine checkout', () => {
  const w = forwardingSuite();
  const { timings, shutdown, timed, checkout, queueCount, events } = w;

  it('creates the queue table on activation, and on the next request for a plugin copied in without activation',
    async () => {
    expect((await w.site.sql("SHOW TABLES LIKE 'wp_waypost_queue'")).trim()).toBe('wp_waypost_queue');
    const columns = (await w.site.sql('SHOW COLUMNS FROM wp_waypost_queue')).split('\n').map((l) => l.split('\t')[0])
      .filter(Boolean);
    expect(columns)
      .toEqual(expect.arrayContaining(['id', 'resource', 'record_id', 'op', 'attempts', 'next_attempt_at', 'last_error',
      'created_at']));

    await w.site.sql(
      "DROP TABLE wp_waypost_queue; DELETE FROM wp_options WHERE option_name = 'waypost_bridge_queue_schema';");
    await (await fetch(`${w.site.url}/`)).arrayBuffer(); // Any request: plugins_loaded sees no schema version.
    expect((await w.site.sql("SHOW TABLES LIKE 'wp_waypost_queue'")).trim()).toBe('wp_waypost_queue');
    expect((await w.site.sql("SELECT option_value FROM wp_options WHERE option_name = 'waypost_bridge_queue_schema'"))
      .trim()).toBe('1');
  });

  it('measures a checkout with forwarding against the same checkout with forwarding off', async () => {
    for (let i = 0; i < 2; i++) await checkout(`warmup${i}@example.org`, { off: true }); // PHP and MariaDB caches.
    expect(w.front.sent).toHaveLength(0); // Off means off.
    for (let i = 0; i < 6; i++) {
      timed('off', await checkout(`baseline${i}@example.org`, { off: true }));
      timed('up', await checkout(`measured${i}@example.org`));
    }
    expect(w.front.puts('bookings')).toHaveLength(6);
    expect(median(timings.up)).toBeLessThan(median(timings.off) + 500);
    expect(Math.max(...shutdown.up)).toBeLessThan(TIMEOUT_MS);
    expect(Math.max(...shutdown.off)).toBeLessThan(5);
    expect(await queueCount()).toBe(0);
  });

  it('sends each record of a checkout once, complete, at the end of the request; the receiver gets booking.created',
    async () => {
    const sentBefore = w.front.sent.length;
    const c = await checkout('zoe@example.org');
    const sent = w.front.sent.slice(sentBefore);

    // Exactly one write per record, all accepted, nothing deleted, in the order customer, payment, booking.
    expect(sent.map((s) => `${s.method} ${s.path} ${s.status}`)).toEqual([
      `PUT /host/v1/customers/${c.customer} 201`,
      `PUT /host/v1/payments/${c.payment} 201`,
      `PUT /host/v1/bookings/${c.booking} 201`,
    ]);
    // Within the request (php -S ends the response after shutdown) and within 2 s of its end at the latest.
    for (const s of sent) expect(s.at).toBeLessThanOrEqual(c.end + 2000);

    // Never half-written: the one booking body has the cart, the trip, the customer and the paid amount.
    const booking = sent[2].body;
    expect(booking).toMatchObject({
      status: 'reserved', currency: 'EUR', total_amount: '160.00', paid_amount: '160.00', due_amount: '0.00',
      cart_version: '4.0', customer: { id: c.customer, email: 'zoe@example.org', first_name: 'Anna',
        last_name: 'Schmidt' },
    });
    expect(booking.trips).toHaveLength(1);
    expect(booking.trips[0]).toMatchObject({ trip_id: 25, travellers: 2 });
    expect(booking.trips[0].line_items.length).toBeGreaterThan(0);
    expect(sent[1].body).toMatchObject({ booking_id: c.booking, status: 'completed', amount: '160.00', currency: 'EUR',
      transaction_id: `REPLAY-${c.payment}` });
    expect(sent[0].body).toMatchObject({ email: 'zoe@example.org' });

    // The receiver: customer.created, booking.payment.completed and booking.created with the complete booking.
    await expect.poll(() => events((d) => d.id === c.booking || d.booking_id === c.booking || d.id === c.customer)
      .length, { timeout: 10_000 }).toBe(3);
    const got = events((d) => d.id === c.booking || d.booking_id === c.booking || d.id === c.customer);
    expect(got.map((e) => e.type).sort()).toEqual(['booking.created', 'booking.payment.completed', 'customer.created']);
    const created = got.find((e) => e.type === 'booking.created')!;
    expect(created.data).toMatchObject({
      id: c.booking, status: 'reserved', total_amount: '160.00', paid_amount: '160.00', due_amount: '0.00',
      cart_version: '4.0', data_complete: true, payment_ids: [c.payment],
      customer: { id: c.customer, email: 'zoe@example.org' },
    });
    expect(created.data.trips[0].line_items.length).toBeGreaterThan(0);
    expect(await queueCount()).toBe(0);
  });

  it('sends nothing for a checkout that stopped half-way (the empty booking post), and never deletes it', async () => {
    const sentBefore = w.front.sent.length;
    const res = await fetch(`${w.site.url}/?waypost_test=abandoned`);
    await res.arrayBuffer();
    expect(res.headers.get('x-waypost-test')).toMatch(/^booking=\d+$/);
    expect(w.front.sent.slice(sentBefore)).toEqual([]);
    expect(await queueCount()).toBe(0);
  });

  it('sends an admin edit (wptravelengine.booking.updated) and a trashed booking as a DELETE', async () => {
    const c = await checkout('yusuf@example.org');
    let sentBefore = w.front.sent.length;
    await (await fetch(`${w.site.url}/?waypost_test=admin_update&booking=${c.booking}&status=booked`)).text();
    const update = w.front.sent.slice(sentBefore).filter((s) => s.path === `/host/v1/bookings/${c.booking}`);
    expect(update.map((s) => [s.method, s.status, s.body.status])).toEqual([['PUT', 200, 'booked']]);
    await expect.poll(() => events((d) => d.id === c.booking).map((e) => e.type), { timeout: 10_000 })
      .toContain('booking.updated');

    sentBefore = w.front.sent.length;
    await (await fetch(`${w.site.url}/?waypost_test=trash&post=${c.booking}`)).text();
    expect(w.front.sent.slice(sentBefore).map((s) => `${s.method} ${s.path} ${s.status}`))
      .toEqual([`DELETE /host/v1/bookings/${c.booking} 204`]);
    expect(await w.waypost.delete('bookings', c.booking)).toBe(false); // Already gone from Waypost.
    expect(await queueCount()).toBe(0);
  });

  it('forwards a review when approved and deletes it when unapproved (comments on trips)', async () => {
    const sentBefore = w.front.sent.length;
    const id = Number((await w.site.php("echo wp_insert_comment( array( 'comment_post_ID' => 25, "
      + "'comment_author' => 'Mia', 'comment_author_email' => 'mia@example.org', 'comment_content' => 'Lovely day.', "
      + "'comment_approved' => 0 ) );")).trim());
    expect(w.front.sent.slice(sentBefore)).toEqual([]); // Held for moderation: not a review yet.
    await w.site.php(`wp_set_comment_status( ${id}, 'approve' );`);
    await w.site.php(`wp_set_comment_status( ${id}, 'hold' );`);
    expect(w.front.sent.slice(sentBefore).map((s) => `${s.method} ${s.path} ${s.status}`)).toEqual([
      `PUT /host/v1/reviews/${id} 201`,
      `DELETE /host/v1/reviews/${id} 204`,
    ]);
    expect(w.front.sent[sentBefore].body).toMatchObject({ trip_id: 25, author_name: 'Mia', content: 'Lovely day.' });
  });
});
