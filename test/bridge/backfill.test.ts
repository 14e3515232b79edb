// Backfill at scale: 10,000 bookings (with a payment each and 1,000 customers), made from the shapes of the 6.8.0
// fixture's real bookings and inserted with SQL, sent to a running Waypost in batches. The run is interrupted midway,
// its saved cursor is even rewound by a batch (an answer lost after Waypost wrote it), and a second run resumes: in
// the end every record is in Waypost exactly once and each fired its events once. Time and rate are printed.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { testWaypost } from '../helpers/waypost.js';
import { apiRoot } from '../../src/config.js';
import { createApiKey, PERMISSIONS, type CreatedApiKey } from '../../src/api/keys.js';
import type { Waypost } from '../../src/sdk.js';
import { addWebhook } from '../webhooks/engine/fixtures.js';
import { BRIDGE_DIR, hasWordPress, startWordPress, truth, type WordPress } from './wordpress.js';
import { generateBookingsPhp } from './generate.js';

const available = await hasWordPress();
const BOOKINGS = 10_000;
const CUSTOMERS = 1_000;
const BATCH = 250;
const FIRST_ID = 100_000;

/** Runs batches until done, or (stopAfterBookings) until that many bookings were examined; prints one JSON line. */
const RUN = (from: 'start' | 'resume', stopAfterBookings: number | null) => `
$cursor   = ${from === 'start' ? 'null' : 'Waypost_Bridge_Backfill_State::saved_cursor()'};
$batches  = 0;
$by       = array();
$started  = microtime( true );
do {
	$resource = null === $cursor ? 'trips' : $cursor['resource'];
	$t        = microtime( true );
	$r        = Waypost_Bridge_Backfill_Batch::run( $cursor, ${BATCH} );
	if ( null !== $r['error'] ) { fwrite( STDERR, $r['error'] ); exit( 1 ); }
	$by[ $resource ] = ( isset( $by[ $resource ] ) ? $by[ $resource ] : 0 ) + ( microtime( true ) - $t );
	$cursor = $r['cursor'];
	++$batches;
	if ( ${stopAfterBookings ?? -1} >= 0 && 'bookings' === $cursor['resource']
		&& $cursor['after'] >= ${FIRST_ID + 2 * (stopAfterBookings ?? 0)} ) {
		break;
	}
} while ( ! $r['done'] );
echo wp_json_encode( array(
	'batches' => $batches, 'cursor' => $cursor, 'seconds' => microtime( true ) - $started, 'by' => $by,
	'memory' => memory_get_peak_usage( true ),
) );
`;

describe.skipIf(!available)(`backfill of ${BOOKINGS.toLocaleString('en')} bookings`, () => {
  const fixture = truth('wpte-6.8.0');
  let waypost: Waypost;
  let app: FastifyInstance;
  let key: CreatedApiKey;
  let site: WordPress;

  const total = async (resource: string) => {
    const res = await app.inject({ method: 'GET', url: `${apiRoot(waypost.config)}/${resource}?perpage=1`,
      headers: { 'access-token': key.key, 'access-secret': key.secret } });
    return Number(res.headers['x-total-count']);
  };
  const events = async (type: string) => {
    const rows = await waypost.core.db.selectFrom('events').select('record_id').where('type', '=', type).execute();
    return { count: rows.length, distinct: new Set(rows.map((r) => r.record_id)).size };
  };

  beforeAll(async () => {
    waypost = await testWaypost();
    app = await waypost.app();
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    key = await createApiKey(waypost.core, { label: 'backfill test', permissions: [...PERMISSIONS] });
    await addWebhook(waypost.core, 'http://127.0.0.1:9/hook',
      { events: ['booking.created', 'customer.created', 'booking.payment.completed'] });
    site = await startWordPress({ fixture: 'wpte-6.8.0', plugins: [BRIDGE_DIR],
      constants: { WAYPOST_URL: address, WAYPOST_HOST_TOKEN: 'test-host-token' } });
    const t0 = Date.now();
    expect(await site.php(generateBookingsPhp({ bookings: BOOKINGS, customers: CUSTOMERS, firstId: FIRST_ID })))
      .toBe('ok');
    const seconds = ((Date.now() - t0) / 1000).toFixed(1);
    console.log(`generated ${BOOKINGS} bookings, ${BOOKINGS} payments and ${CUSTOMERS} customers with SQL `
      + `in ${seconds} s`);
  }, 120_000);

  afterAll(async () => {
    await site?.close();
    await waypost?.close();
  });

  it('is resumable: an interrupted run, a rewound cursor and a second run send each record once', async () => {
    const bookings = BOOKINGS + fixture.bookings.length;
    const payments = BOOKINGS + fixture.payments.length;
    const customers = CUSTOMERS + fixture.customers.length;

    const first = JSON.parse(await site.php(RUN('start', BOOKINGS / 2)));
    expect(first.cursor.resource).toBe('bookings');
    const saved = JSON.parse(await site.php('echo wp_json_encode( Waypost_Bridge_Backfill_State::saved_cursor() );'));
    expect(saved).toEqual(first.cursor);
    const midway = await total('bookings');
    expect(midway).toBeGreaterThanOrEqual(BOOKINGS / 2);
    expect(midway).toBeLessThan(bookings);

    // The last batch's answer was "lost": the saved cursor goes back one batch, so it is sent again.
    await site.php(`
      $state = get_option( Waypost_Bridge_Backfill_State::OPTION );
      $state['cursor']['after']    -= 2 * ${BATCH};
      $state['cursor']['position'] -= ${BATCH};
      update_option( Waypost_Bridge_Backfill_State::OPTION, $state, false );
    `);
    const second = JSON.parse(await site.php(RUN('resume', null)));
    expect(second.cursor.resource).toBeNull();
    expect(second.cursor.failed).toBe(0);
    expect(second.cursor.position).toBe(second.cursor.total);

    expect(await total('bookings')).toBe(bookings);
    expect(await total('payments')).toBe(payments);
    expect(await total('customers')).toBe(customers);
    expect(await events('booking.created')).toEqual({ count: bookings, distinct: bookings });
    expect(await events('customer.created')).toEqual({ count: customers, distinct: customers });
    const paidInFixture = fixture.payments.filter((p: any) => p.status === 'completed').length;
    expect(await events('booking.payment.completed'))
      .toEqual({ count: BOOKINGS / 5 + paidInFixture, distinct: BOOKINGS / 5 + paidInFixture });

    const seconds = first.seconds + second.seconds;
    const bookingSeconds = (first.by.bookings ?? 0) + (second.by.bookings ?? 0);
    const records = second.cursor.total + BATCH; // every candidate once, plus the batch sent twice
    console.log([
      `backfill: ${records} records (${bookings} bookings) in ${seconds.toFixed(1)} s = ${(records / seconds)
        .toFixed(0)} records/s over ${first.batches + second.batches} batches of ${BATCH}`,
      `  bookings phase: ${bookings} bookings in ${bookingSeconds.toFixed(1)} s = ${(bookings / bookingSeconds)
        .toFixed(0)} bookings/s (mapping in PHP + Host API batch into SQLite Waypost)`,
      `  peak PHP memory ${(Math.max(first.memory, second.memory) / 2 ** 20).toFixed(0)} MiB`,
    ].join('\n'));
  }, 240_000);
});

describe.skipIf(!available)('"Send existing records" in the background (WP-Cron)', () => {
  const fixture = truth('wpte-6.8.0');
  let waypost: Waypost;
  let site: WordPress;
  const status = async () =>
    JSON.parse(await site.php('echo wp_json_encode( Waypost_Bridge_Backfill_State::status() );'));
  const until = async (done: (s: any) => boolean, ms = 60_000) => {
    const end = Date.now() + ms;
    for (;;) {
      const s = await status();
      if (done(s) || Date.now() > end) return s;
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  beforeAll(async () => {
    waypost = await testWaypost();
    const address = await (await waypost.app()).listen({ port: 0, host: '127.0.0.1' });
    site = await startWordPress({ fixture: 'wpte-6.8.0', plugins: [BRIDGE_DIR],
      constants: { WAYPOST_URL: address, WAYPOST_HOST_TOKEN: 'test-host-token' } });
    // One batch of 3 per WP-Cron event, so the run has to chain many events.
    await mkdir(path.join(site.dir, 'wp-content/mu-plugins'), { recursive: true });
    await writeFile(path.join(site.dir, 'wp-content/mu-plugins/waypost-test-slices.php'), [
      '<?php',
      "add_filter( 'waypost_bridge_backfill_slice_seconds', '__return_zero' );",
      "add_filter( 'waypost_bridge_backfill_batch_size', function () { return 3; } );",
    ].join('\n'));
  }, 60_000);

  afterAll(async () => {
    await site?.close();
    await waypost?.close();
  });

  it('lets one driver send at a time (the lock the CLI and the background run take)', async () => {
    const out = await site.php(`
      $a = Waypost_Bridge_Sending_Lock::take();
      $b = Waypost_Bridge_Sending_Lock::take();
      Waypost_Bridge_Sending_Lock::release();
      $c = Waypost_Bridge_Sending_Lock::take();
      Waypost_Bridge_Sending_Lock::release();
      echo wp_json_encode( array( $a, $b, $c ) );
    `);
    expect(JSON.parse(out)).toEqual([true, false, true]);
  });

  it('runs to the end through chained WP-Cron events (core\'s spawn_cron() starts each on a page view); cancel stops '
    + 'it, start resumes it', async () => {
    const records = fixture.trips.length + fixture.customers.length + fixture.bookings.length + fixture.payments.length
      + fixture.enquiries.length;
    // A first batch by hand (as an interrupted CLI run would leave it), then start and cancel at once.
    const stopped = JSON.parse(await site.php(`
      Waypost_Bridge_Backfill_Batch::run( null, 3 );
      Waypost_Bridge_Backfill::start();
      echo wp_json_encode( Waypost_Bridge_Backfill::cancel() );
    `));
    expect(stopped).toMatchObject({ running: false, done: false, position: 3, total: records });
    await new Promise((r) => setTimeout(r, 1000));
    expect((await status()).position).toBe(3); // nothing ran after the cancel

    // "Send existing records" again: resumes from record 4 and finishes on its own, one batch per cron event.
    const started = JSON.parse(await site.php('echo wp_json_encode( Waypost_Bridge_Backfill::start() );'));
    expect(started).toMatchObject({ running: true, position: 3 });
    // Visitors only: no settings page open. Each view spawns WP-Cron (core's spawn_cron(), once the previous run
    // has let go of its lock), and each cron run sends one slice and schedules the next.
    const inWaypost = async () => {
      let n = 0;
      for (const table of ['trips', 'customers', 'bookings', 'payments', 'enquiries'] as const) {
        n += Number((await waypost.core.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirst())!.n);
      }
      return n;
    };
    const deadline = Date.now() + 60_000;
    while ((await inWaypost()) < records && Date.now() < deadline) {
      await (await fetch(`${site.url}/`)).text();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await inWaypost()).toBe(records);
    const done = await until((s) => !s.running, 10_000);
    expect(done).toMatchObject({ running: false, done: true, percent: 100, position: records, failed: 0, sent: records,
      last_error: null });
    expect(typeof done.finished_at).toBe('number');
    const stored = await waypost.core.db.selectFrom('bookings').select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    expect(Number(stored!.n)).toBe(fixture.bookings.length);
  }, 90_000);
});
