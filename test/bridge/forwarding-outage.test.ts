// The bridge's forwarding when Waypost is down (port closed), hangs (connections accepted, never answered) or
// refuses a record (4xx): what a checkout waits, the retry queue, WP-Cron's retries and "Retry now". The world is
// test/bridge/forwarding-site.ts's (as test/bridge/forwarding.test.ts).
import { describe, expect, it } from 'vitest';
import { forwardingSuite, median, MARGIN_MS, TIMEOUT_MS } from './forwarding-site.js';
import { hasWordPress } from './wordpress.js';

describe.runIf(await hasWordPress())('WordPress bridge: forwarding while Waypost is down, hangs or refuses', () => {
  const w = forwardingSuite(async ({ checkout, timed }) => {
    for (let i = 0; i < 2; i++) await checkout(`warmup${i}@example.org`, { off: true }); // PHP and MariaDB caches.
    // The baseline the delays are measured against: the same checkout with forwarding off.
    for (let i = 0; i < 3; i++) timed('off', await checkout(`baseline${i}@example.org`, { off: true }));
  });
  const { timings, shutdown, timed, checkout, queueCount, queueRows, makeDue, runCron, events } = w;

  it('queues the writes while Waypost is down (port closed), keeps one row per record with its latest state, '
    + 'and sends them in order once it is up and WP-Cron runs', async () => {
    await w.front.down();
    const c = timed('down', await checkout('xena@example.org'));
    for (let i = 0; i < 2; i++) timed('down', await checkout(`down${i}@example.org`));
    expect(c.ms).toBeLessThan(median(timings.off) + TIMEOUT_MS + MARGIN_MS);
    expect(Math.max(...shutdown.down)).toBeLessThan(500); // A refused connection costs nothing to wait for.

    const rows = (await queueRows()).filter((r) => [c.booking, c.customer, c.payment].includes(Number(r.record_id)));
    expect(rows.map((r) => `${r.op} ${r.resource} ${r.record_id}`)).toEqual([
      `put customers ${c.customer}`, `put payments ${c.payment}`, `put bookings ${c.booking}`,
    ]);
    expect(rows[0].last_error).toMatch(/did not answer/i);
    // The whole request's records wait together: the retry is 1 minute away.
    const due = rows.map((r) => Date.parse(`${r.next_attempt_at}Z`));
    expect(new Set(due).size).toBe(1);
    expect(due[0]).toBeGreaterThan(Date.now() + 30_000);

    // A newer state while still down (the admin marks it booked): the booking's row is replaced, not added.
    await (await fetch(`${w.site.url}/?waypost_test=admin_update&booking=${c.booking}&status=booked`)).text();
    const after = (await queueRows()).filter((r) => Number(r.record_id) === c.booking && r.resource === 'bookings');
    expect(after).toHaveLength(1);

    // Waypost is back; WP-Cron before the backoff has passed sends nothing.
    await w.front.up();
    const sentBefore = w.front.sent.length;
    await runCron();
    expect(w.front.sent.length).toBe(sentBefore);

    // Time passes; WP-Cron retries: everything arrives, in order, in its latest state, once.
    await makeDue();
    await runCron();
    const sent = w.front.sent.slice(sentBefore);
    const mine = sent.filter((s) => [`/host/v1/customers/${c.customer}`, `/host/v1/payments/${c.payment}`,
      `/host/v1/bookings/${c.booking}`].includes(s.path));
    expect(mine.map((s) => `${s.method} ${s.path} ${s.status}`)).toEqual([
      `PUT /host/v1/customers/${c.customer} 201`,
      `PUT /host/v1/payments/${c.payment} 201`,
      `PUT /host/v1/bookings/${c.booking} 201`,
    ]);
    expect(mine[2].body).toMatchObject({ status: 'booked', cart_version: '4.0', paid_amount: '160.00' });
    expect(sent.every((s) => s.status < 300)).toBe(true);
    expect(await queueCount()).toBe(0);
    await expect.poll(() => events((d) => d.id === c.booking).map((e) => e.type), { timeout: 10_000 })
      .toEqual(['booking.created']);
    expect(events((d) => d.id === c.booking)[0].data)
      .toMatchObject({ status: 'booked', payment_ids: [c.payment], data_complete: true });
  });

  it('delays a checkout by at most the timeout when Waypost hangs, then stops waiting for it until it answers again',
    async () => {
    w.front.mode = 'hang';
    await w.front.down();
    await w.front.up();
    const c = timed('hang', await checkout('wanda@example.org'));
    expect(c.ms).toBeLessThan(median(timings.off) + TIMEOUT_MS + MARGIN_MS);
    expect(c.shutdownMs).toBeLessThan(TIMEOUT_MS + 300);
    expect(c.shutdownMs).toBeGreaterThan(TIMEOUT_MS * 0.9); // It did wait for Waypost, once.
    const rows = await queueRows();
    expect(rows.map((r) => `${r.resource} ${r.record_id}`))
      .toEqual([`customers ${c.customer}`, `payments ${c.payment}`, `bookings ${c.booking}`]);
    expect(rows[0].last_error).toMatch(/did not answer/i);

    // During the cool-down the next checkouts do not wait at all.
    for (let i = 0; i < 3; i++) timed('cooldown', await checkout(`cool${i}@example.org`));
    expect(Math.max(...shutdown.cooldown)).toBeLessThan(200);
    expect(await queueCount()).toBe(3 * 4);

    // Waypost answers again: the queue drains (and the cool-down ends).
    w.front.mode = 'forward';
    await w.front.down();
    await w.front.up();
    await makeDue();
    await runCron();
    expect(await queueCount()).toBe(0);
    expect(w.front.puts('bookings').filter((s) => s.path === `/host/v1/bookings/${c.booking}`)).toHaveLength(1);
    const next = await checkout('vera@example.org');
    expect(w.front.puts('bookings').filter((s) => s.path === `/host/v1/bookings/${next.booking}`)).toHaveLength(1);
    expect(await queueCount()).toBe(0);
  });

  it('parks a record Waypost refuses (4xx) with its error instead of retrying it forever', async () => {
    const id = Number((await w.site.php("echo wp_insert_comment( array( 'comment_post_ID' => 25, "
      + "'comment_author' => 'Noor', 'comment_content' => 'ok', 'comment_approved' => 1 ) );")).trim());
    expect(w.front.sent.at(-1)).toMatchObject({ method: 'PUT', path: `/host/v1/reviews/${id}`, status: 201 });

    // Waypost refuses the next write of it (any 4xx other than 401, 408, 409, 425, 429).
    const before = w.front.sent.length;
    w.front.answer = (method, p) => (p === `/host/v1/reviews/${id}`
      ? { status: 400, body: { status: 400, code: 'invalid_field', detail: 'content is too long' } } : null);
    try {
      await w.site.php(`wp_update_comment( array( 'comment_ID' => ${id}, 'comment_content' => 'changed' ) );`);
      expect(w.front.sent.slice(before).map((s) => s.status)).toEqual([400]);
      const rows = await queueRows();
      expect(rows).toHaveLength(1);
      expect(rows[0])
        .toMatchObject({ resource: 'reviews', record_id: String(id), attempts: '1', next_attempt_at: null });
      expect(rows[0].last_error).toMatch(/400.*content is too long/);
      await makeDue();
      await runCron();
      expect(w.front.sent.slice(before)).toHaveLength(1); // Parked: WP-Cron does not retry it.
    } finally {
      w.front.answer = null;
    }
    // "Retry now" (or a newer state of the record) sends it again.
    const result = JSON.parse(await w.site.php('echo wp_json_encode( Waypost_Bridge_Queue_Runner::retry_now() );'));
    expect(result).toMatchObject({ sent: 1, remaining: 0 });
    expect(w.front.sent.at(-1)).toMatchObject({ method: 'PUT', path: `/host/v1/reviews/${id}`, status: 200 });
    expect(w.front.sent.at(-1)!.body).toMatchObject({ content: 'changed' });
  });
});
