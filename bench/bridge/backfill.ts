// Part 2: backfill throughput, the bridge alone (Waypost stubbed in PHP) beside the bridge into a fresh Waypost.
import { sql } from 'kysely';
import { generateBookingsPhp } from '../../test/bridge/generate.js';
import type { WordPress } from '../../test/bridge/wordpress.js';
import { testWaypost } from '../../test/helpers/waypost.js';
import { addWebhook } from '../../test/webhooks/engine/fixtures.js';
import { BACKFILL_ROUNDS, BOOKINGS, CUSTOMERS, FIRST_ID, progress, thousands } from './options.js';
import { runBatches } from './php.js';
import { medianBy } from './stats.js';

type By = Record<string, { seconds: number; sent: number; failed: number; skipped: number; batches: number }>;
export interface BackfillRun {
  records: number; sent: number; failed: number; skipped: number; seconds: number; records_per_second: number;
  bookings: {
    in_whole_batches: number; failed: number; batches: number; seconds: number; bookings_per_second: number;
  };
  by_resource: Record<string, unknown>; peak_php_memory_mib: number;
}
interface BackfillRound {
  bridge_only: BackfillRun; waypost: BackfillRun; waypost_bookings_after: number; ratio: number;
}

const sumSeconds = (by: By) => Object.values(by).reduce((a, b) => a + b.seconds, 0);

/** One backfill from start to end, 5 batches per php run; stub: WordPress' HTTP answered in PHP. */
async function backfill(wp: WordPress, label: string, stub: boolean): Promise<BackfillRun> {
  let cursor: any = null; // The plugin's JSON cursor, passed back as it came.
  const by: By = {};
  let memory = 0;
  for (;;) {
    const out = JSON.parse(await wp.php(runBatches(cursor, 5, stub)));
    for (const [resource, v] of Object.entries(out.by as By)) {
      const b = (by[resource] ??= { seconds: 0, sent: 0, failed: 0, skipped: 0, batches: 0 });
      b.seconds += v.seconds; b.sent += v.sent; b.failed += v.failed; b.skipped += v.skipped; b.batches += v.batches;
    }
    memory = Math.max(memory, out.memory);
    cursor = out.cursor;
    const b = by.bookings;
    progress(`backfill (${label}): ${thousands(cursor.position)}/${thousands(cursor.total)} records, `
      + `${Math.round(cursor.sent / sumSeconds(by))} records/s`
      + (b ? `, bookings ${(b.sent / b.seconds).toFixed(0)}/s` : ''));
    if (out.done) break;
  }
  const seconds = sumSeconds(by);
  const bk = by.bookings ?? { seconds: NaN, sent: 0, failed: 0, skipped: 0, batches: 0 };
  return {
    records: cursor.total as number,
    sent: cursor.sent as number,
    failed: cursor.failed as number,
    skipped: cursor.skipped as number,
    seconds: Number(seconds.toFixed(2)),
    records_per_second: Math.round(cursor.sent / seconds),
    // Bookings/s from the batches that held only bookings (the one crossing into payments is under "mixed").
    bookings: {
      in_whole_batches: bk.sent,
      failed: bk.failed,
      batches: bk.batches,
      seconds: Number(bk.seconds.toFixed(2)),
      bookings_per_second: Math.round(bk.sent / bk.seconds),
    },
    by_resource: Object.fromEntries(Object.entries(by).map(([r, v]) =>
      [r, { ...v, seconds: Number(v.seconds.toFixed(3)), per_second: Math.round(v.sent / v.seconds) }])),
    peak_php_memory_mib: Math.round(memory / 2 ** 20),
  };
}

export async function measureBackfill(wp: WordPress) {
  progress(`backfill: generating ${thousands(BOOKINGS)} bookings, ${thousands(BOOKINGS)} payments and `
    + `${thousands(CUSTOMERS)} customers with SQL…`);
  const g0 = Date.now();
  const generated = await wp.php(generateBookingsPhp({ bookings: BOOKINGS, customers: CUSTOMERS, firstId: FIRST_ID }));
  if (generated !== 'ok') throw new Error(`generating bookings: ${generated}`);
  progress(`generated in ${((Date.now() - g0) / 1000).toFixed(1)} s`);

  const wpBookings = Number((await wp.sql('SELECT COUNT(*) FROM wp_posts WHERE post_type = \'booking\''
    + ' AND post_status NOT IN (\'trash\', \'auto-draft\', \'inherit\')')).trim());
  // Each round: the bridge alone, and into a fresh Waypost (so every record is new to it), in alternating order.
  const rounds: BackfillRound[] = [];
  for (let r = 1; r <= BACKFILL_ROUNDS; r++) {
    const target = await testWaypost();
    try {
      process.env.WAYPOST_BENCH_URL = await (await target.app()).listen({ port: 0, host: '127.0.0.1' });
      await addWebhook(target.core, 'http://127.0.0.1:9/hook');
      const label = `round ${r}/${BACKFILL_ROUNDS}`;
      let stubbed: BackfillRun;
      let sent: BackfillRun;
      if (r % 2 === 1) {
        stubbed = await backfill(wp, `${label}, bridge only`, true);
        sent = await backfill(wp, `${label}, Waypost`, false);
      } else {
        sent = await backfill(wp, `${label}, Waypost`, false);
        stubbed = await backfill(wp, `${label}, bridge only`, true);
      }
      const after = Number((await sql<{ n: number }>`SELECT COUNT(*) AS n FROM bookings`
        .execute(target.core.db)).rows[0].n);
      const ratio = sent.bookings.bookings_per_second / stubbed.bookings.bookings_per_second;
      rounds.push({ bridge_only: stubbed, waypost: sent, waypost_bookings_after: after, ratio });
      progress(`backfill ${label}: bookings/s ${sent.bookings.bookings_per_second} into Waypost vs `
        + `${stubbed.bookings.bookings_per_second} bridge only; Waypost holds ${after}/${wpBookings} bookings, `
        + `${sent.failed} failed`);
    } finally {
      delete process.env.WAYPOST_BENCH_URL;
      await target.close();
    }
  }
  return {
    wpBookings,
    rounds,
    bridgeOnly: medianBy(rounds.map((x) => x.bridge_only), (x) => x.bookings.bookings_per_second),
    real: medianBy(rounds.map((x) => x.waypost), (x) => x.bookings.bookings_per_second),
    ratio: medianBy(rounds, (x) => x.ratio).ratio,
    checks: {
      waypost_bookings_after_each_round: rounds.map((x) => x.waypost_bookings_after),
      bookings_in_wordpress: wpBookings,
      failed: rounds.map((x) => x.waypost.failed),
    },
  };
}
export type Backfill = Awaited<ReturnType<typeof measureBackfill>>;
