// WordPress's privacy tools reach Waypost (issue 34, step 3): the bridge's personal data eraser and exporter, run the
// way Tools > Erase Personal Data and Export Personal Data run them: a confirmed request (wp_create_user_request), the
// nonce the tools page printed for it, then every registered eraser (exporter) page after page through admin-ajax.php
// as an administrator, until each says done. The world is test/bridge/forwarding-site.ts's: a real WordPress on
// MariaDB with the WP Travel Engine 6.8.0 fixture and its checkout replayed, a real Waypost behind a recording front
// (which plays "down"), a real webhook receiver.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { forwardingSuite, TOKEN } from './forwarding-site.js';
import { adminHttp, type AdminHttp } from './wp-admin-http.js';
import { hasWordPress } from './wordpress.js';

// ZipArchive is not in this PHP: WordPress's own export file step would answer an error. The test keeps the grouped
// data that step is given (what the zip's export.json and index.html are made of) and skips the zip.
const EXPORT_CAPTURE = `<?php
add_action( 'wp_privacy_personal_data_export_file', static function ( $request_id ) {
	update_option( 'waypost_test_export', get_post_meta( $request_id, '_export_data_grouped', true ), false );
}, 5 );
add_action( 'admin_init', static function () {
	remove_action( 'wp_privacy_personal_data_export_file', 'wp_privacy_generate_personal_data_export_file', 10 );
} );
`;

type Tool = 'eraser' | 'exporter';
interface Page { success: boolean; data: any }

describe.runIf(await hasWordPress())('WordPress bridge: Erase and Export Personal Data include Waypost', () => {
  let admin: AdminHttp;
  let app: FastifyInstance;
  const w = forwardingSuite(async (s) => {
    await writeFile(path.join(s.site.dir, 'wp-content/mu-plugins/waypost-test-export.php'), EXPORT_CAPTURE);
    admin = await adminHttp(s.site);
    app = await s.waypost.app();
  });

  /** Waypost's own export of an e-mail (what it holds about them). */
  const held = async (email: string) => {
    const res = await app.inject({ method: 'POST', url: '/host/v1/exports',
      headers: { authorization: `Bearer ${TOKEN}` }, payload: { email } });
    expect(res.statusCode).toBe(200);
    return res.json();
  };

  /** A checkout forwarded to Waypost, its webhook deliveries made. */
  const booked = async (email: string) => {
    const c = await w.checkout(email);
    await expect.poll(() => w.events((d) => d.id === c.booking).length, { timeout: 10_000 }).toBe(1);
    expect((await held(email)).records.customers).toHaveLength(1);
    return c;
  };

  /** Runs one privacy tool for an e-mail as wp-admin does; every page's answer of our eraser/exporter. */
  const runTool = async (tool: Tool, email: string) => {
    const action = tool === 'eraser' ? 'remove_personal_data' : 'export_personal_data';
    // An earlier request of the same kind for the e-mail is deleted first (as the admin would), else WordPress refuses
    // a second one.
    const found = JSON.parse(await w.site.php(`
      $earlier = get_posts( array( 'post_type' => 'user_request', 'title' => '${email}', 'name' => '${action}',
        'post_status' => array_keys( _wp_privacy_statuses() ), 'numberposts' => -1 ) );
      foreach ( $earlier as $post ) { wp_delete_post( $post->ID, true ); }
      $id = wp_create_user_request( '${email}', '${action}', array(), 'confirmed' );
      $all = apply_filters( 'wp_privacy_personal_data_${tool}s', array() );
      $ours = array_search( 'waypost-bridge', array_keys( $all ), true );
      echo wp_json_encode( array( 'id' => is_wp_error( $id ) ? $id->get_error_message() : $id, 'ours' => $ours ) );
    `));
    const requestId = Number(found.id);
    expect(requestId, found.id).toBeGreaterThan(0);
    const screen = tool === 'eraser' ? 'erase-personal-data.php' : 'export-personal-data.php';
    const html = (await admin.get(screen)).html;
    const m = new RegExp(`data-${tool}s-count="(\\d+)"\\s+data-request-id="${requestId}"\\s+data-nonce="([0-9a-f]+)"`)
      .exec(html);
    if (!m) throw new Error(`no ${tool} button for request ${requestId} on ${screen}`);
    const [count, nonce] = [Number(m[1]), m[2]];
    const ours: Page[] = [];
    for (let index = 1; index <= count; index++) {
      for (let page = 1; page < 500; page++) {
        const answer: Page = await admin.ajax({
          action: tool === 'eraser' ? 'wp-privacy-erase-personal-data' : 'wp-privacy-export-personal-data',
          id: String(requestId), security: nonce, page: String(page), [tool]: String(index),
          ...(tool === 'exporter' ? { sendAsEmail: 'false' } : {}),
        });
        expect(answer.success, JSON.stringify(answer)).toBe(true);
        if (index === found.ours + 1) ours.push(answer);
        if (answer.data.done) break;
      }
    }
    const status = (await w.site.php(`echo get_post_status( ${requestId} );`)).trim();
    return { requestId, ours, status };
  };

  const queued = async () => JSON.parse(await w.site.php(
    'echo wp_json_encode( array_values( Waypost_Bridge_Erasure_Queue::all() ) );')) as Array<Record<string, any>>;

  /** Time passes: every queued erasure is due. */
  const erasuresDue = () => w.site.php(`$all = get_option( 'waypost_bridge_erasures' );
    foreach ( $all as $k => $e ) { $all[ $k ]['next_at'] = time() - 1; }
    update_option( 'waypost_bridge_erasures', $all, false );`);

  it('Export Personal Data includes Waypost\'s group: the booking with its customer, and each delivery', async () => {
    const email = 'ella.export@example.org';
    const c = await booked(email);
    const { ours } = await runTool('exporter', email);
    expect(ours).toHaveLength(1);
    const grouped = JSON.parse(await w.site.php("echo wp_json_encode( get_option( 'waypost_test_export' ) );"));
    expect(grouped.waypost.group_label).toBe('Waypost');
    const items = Object.values(grouped.waypost.items) as Array<Array<{ name: string; value: string }>>;
    const fields = (item: Array<{ name: string; value: string }>) =>
      Object.fromEntries(item.map((p) => [p.name, p.value]));
    const records = items.map(fields);
    expect(records).toContainEqual(expect.objectContaining({ Record: `Customer ${c.customer}`, Email: email }));
    expect(records).toContainEqual(expect.objectContaining({
      Record: `Booking ${c.booking}`, Status: 'reserved', 'Customer › Email': email, 'Trips › 1 › Trip id': '25',
    }));
    expect(records).toContainEqual(expect.objectContaining({ Record: `Payment ${c.payment}`, Amount: '160.00' }));
    // The deliveries that carried their data (a payment's event has no personal field).
    const deliveries = records.filter((r) => r.Record === 'Delivery to a webhook');
    expect(deliveries.map((d) => d.Event).sort()).toEqual(['booking.created', 'customer.created']);
    expect(deliveries[0])
      .toMatchObject({ Webhook: 'Test hook', 'Webhook URL': expect.stringMatching(/^http:\/\/127/) });

    // Waypost unreachable: the export goes on, with one item saying its part is missing.
    await w.front.down();
    try {
      await runTool('exporter', email);
    } finally {
      await w.front.up();
    }
    const missing = JSON.parse(await w.site.php("echo wp_json_encode( get_option( 'waypost_test_export' ) );"));
    const only = Object.values(missing.waypost.items) as Array<Array<{ value: string }>>;
    expect(only).toHaveLength(1);
    expect(only[0][0].value).toMatch(/could not be reached.*Export again/);
  });

  it('Erase Personal Data erases the person in Waypost, follows the erasure to its end and names the webhooks',
    async () => {
    const email = 'erin.erase@example.org';
    const c = await booked(email);
    const sentBefore = w.front.sent.length;
    const { ours, status } = await runTool('eraser', email);

    const last = ours.at(-1)!.data;
    expect(last).toMatchObject({ done: true, items_removed: true, items_retained: false });
    expect(last.messages).toEqual([expect.stringMatching(
      /^Waypost had sent this person's data to: Test hook \(http:\/\/127\.0\.0\.1:\d+.*\) — pass the request on/)]);
    expect(status).toBe('request-completed');
    const calls = w.front.sent.slice(sentBefore).map((s) => `${s.method} ${s.path.replace(/ers_\w+/, 'ers_…')}`);
    // Page 1 asks for the erasure (Waypost answers 202, running); the next pages follow it until it has finished.
    expect(calls[0]).toBe('POST /host/v1/erasures');
    expect(w.front.sent[sentBefore].body).toEqual({ email });
    expect(new Set(calls.slice(1))).toEqual(new Set(['GET /host/v1/erasures/ers_…']));
    expect(ours.length).toBeGreaterThan(1);
    expect(ours.slice(0, -1).every((p) => p.data.done === false)).toBe(true);

    // In Waypost: the customer is gone, the booking stays without them.
    const after = await held(email);
    expect(after.records).toMatchObject({ customers: [], bookings: [] });
    const booking = await w.waypost.core.db.selectFrom('bookings').selectAll().where('id', '=', c.booking)
      .executeTakeFirstOrThrow();
    expect(booking).toMatchObject({ customer_id: null, customer_email: null });
    expect(JSON.parse(booking.data)).toMatchObject({ total_amount: '160.00' });
    expect(JSON.stringify(booking)).not.toContain(email);
    expect(JSON.stringify(booking)).not.toContain('Schmidt');
    expect(await queued()).toEqual([]);
    // Nothing of the request is kept by the bridge once it is done.
    expect((await w.site.sql("SELECT COUNT(*) FROM wp_options WHERE option_name LIKE '%waypost_bridge_erasure%'"))
      .trim()).toBe('0');
  });

  it('erases a reviewer who never booked: Waypost finds the review by the comment\'s e-mail, not by name', async () => {
    const email = 'rita.review@example.org';
    const review = async (id: number) => (await w.waypost.core.db.selectFrom('reviews').select('data')
      .where('id', '=', id).executeTakeFirst())?.data;
    // Two approved comments on a trip by people of the same name: hers, and a namesake's under another e-mail.
    const comment = async (author: string, address: string) => Number(await w.site.php(`echo wp_insert_comment( array(
      'comment_post_ID' => 22, 'comment_author' => '${author}', 'comment_author_email' => '${address}',
      'comment_content' => 'Wonderful days.', 'comment_approved' => 1, 'comment_type' => 'comment' ) );`));
    const [hers, namesake] = [await comment('Rita Review', email), await comment('Rita Review', 'rita@example.net')];
    await expect.poll(async () => [await review(hers), await review(namesake)].every(Boolean), { timeout: 10_000 })
      .toBe(true);
    expect(await review(hers)).not.toContain(email); // only a hash of it reaches Waypost's records
    expect((await held(email)).records.reviews).toMatchObject([{ id: hers, author_name: 'Rita Review' }]);

    const { ours, status } = await runTool('eraser', email);
    expect(ours.at(-1)!.data).toMatchObject({ done: true, items_removed: true });
    expect(status).toBe('request-completed');
    expect(JSON.parse((await review(hers))!)).toMatchObject({ author_name: 'Anonymous', content: 'Wonderful days.' });
    expect(JSON.parse((await review(namesake))!)).toMatchObject({ author_name: 'Rita Review' });
    // Her review.created as stored no longer names her (WordPress's own comment eraser, which ran first, updates
    // the comment without a hook: the bridge sends nothing, and Waypost still finds the review by her e-mail).
    const event = await w.waypost.core.db.selectFrom('events').select('data').where('resource', '=', 'reviews')
      .where('record_id', '=', hers).executeTakeFirstOrThrow();
    expect(event.data).not.toContain('Rita');
  });

  it('queues the erasure while Waypost is down and sends it when Waypost answers again; Waypost then erases',
    async () => {
    const email = 'olga.outage@example.org';
    await booked(email);
    await w.front.down();
    let ours: Page[];
    try {
      ({ ours } = await runTool('eraser', email));
      const last = ours.at(-1)!.data;
      expect(last).toMatchObject({ done: true, items_removed: false, items_retained: true });
      expect(last.messages[0]).toMatch(/could not be reached.*queued and will be sent when Waypost answers/);
      const pending = await queued();
      expect(pending).toHaveLength(1);
      expect(pending[0]).toMatchObject({ email, attempts: 1 });
      // Settings > Webhooks & API says it waits (without the e-mail).
      const settings = await admin.settings();
      expect(/id="waypost-queue-erasures">([\s\S]*?)<\/td>/.exec(settings)?.[1])
        .toMatch(/1 from Erase Personal Data waits for Waypost[\s\S]*(refused|Failed to connect)/);
      expect(settings).not.toContain(email);
      // Still down when WP-Cron retries: kept, with one more attempt.
      await erasuresDue();
      await w.runCron();
      expect(await queued()).toMatchObject([{ email, attempts: 2 }]);
      expect((await held(email)).records.customers).toHaveLength(1);
    } finally {
      await w.front.up();
    }
    // Waypost answers again; WP-Cron before the backoff has passed sends nothing, after it sends the erasure.
    const sentBefore = w.front.sent.length;
    await w.runCron();
    expect(w.front.sent.slice(sentBefore)).toEqual([]);
    await erasuresDue();
    await w.runCron();
    expect(w.front.sent.slice(sentBefore).map((s) => `${s.method} ${s.path} ${s.status}`))
      .toEqual(['POST /host/v1/erasures 202']);
    expect(w.front.sent.at(-1)!.body).toEqual({ email });
    expect(await queued()).toEqual([]); // The e-mail is no longer kept.
    await expect.poll(async () => (await held(email)).records.customers, { timeout: 10_000 }).toEqual([]);
  });

  it('reports an erasure Waypost refuses (400) in the request\'s messages, without queueing it', async () => {
    const email = 'rita.refused@example.org';
    w.front.answer = (method, p) => (method === 'POST' && p === '/host/v1/erasures'
      ? { status: 400, body: { status: 400, code: 'invalid_field', detail: 'email is not an e-mail address' } } : null);
    try {
      const { ours } = await runTool('eraser', email);
      expect(ours.at(-1)!.data).toMatchObject({ done: true, items_removed: false, items_retained: true });
      expect(ours.at(-1)!.data.messages[0]).toMatch(/Waypost refused the erasure \(HTTP 400: invalid_field/);
    } finally {
      w.front.answer = null;
    }
    expect(await queued()).toEqual([]);
  });
});
