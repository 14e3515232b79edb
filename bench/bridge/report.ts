// The bridge benchmark's report: bench/results/bridge-<date>[-quick].json and .md, the .md also printed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { WordPress } from '../../test/bridge/wordpress.js';
import type { Backfill } from './backfill.js';
import type { measureCheckouts } from './checkout.js';
import { pluginState, version } from './machine.js';
import {
  BACKFILL_ROUNDS, BATCH, BOOKINGS, QUICK, ROUNDS, SIDES, WARMUP, progress, started, thousands,
} from './options.js';
import { setup } from './setup-text.js';

type Checkouts = Awaited<ReturnType<typeof measureCheckouts>>;

const f = (n: number | null | undefined) =>
  (n === null || n === undefined || !Number.isFinite(n) ? '–' : n.toFixed(1));
const sign = (n: number) => (Number.isFinite(n) ? `${n >= 0 ? '+' : ''}${n.toFixed(1)}` : '–');

export async function report(
  wp: WordPress, pluginAtStart: ReturnType<typeof pluginState>, { requests, checks, part1Seconds }: Checkouts,
  backfill: Backfill,
) {
  const pluginAtEnd = pluginState();
  const plugin = { ...pluginAtStart, changed_during_run: pluginAtEnd.sha256 !== pluginAtStart.sha256 };
  if (plugin.changed_during_run) {
    progress('WARNING: the plugin\'s files changed during the run; the figures mix two versions. Run it again.');
  }
  const date = new Date();
  const stamp = date.toISOString().slice(0, 10);
  const php = version('php', ['-r', 'echo PHP_VERSION;']);
  const mariadb = version('mysql', ['-N', '-B', '-h', '127.0.0.1', '-P', '3306', '-u', 'root', '-e',
    'SELECT VERSION()']);
  const wordpress = (await wp.php('echo get_bloginfo( "version" );')).trim();
  const { bridgeOnly, real, rounds: backfillRounds, checks: backfillChecks, wpBookings } = backfill;
  const out = {
    benchmark: 'WordPress bridge: time a checkout request spends on forwarding (Waypost up / down / hanging) against '
      + 'forwarding off, and backfill throughput',
    command: `npm run bench:bridge${QUICK ? ' -- --quick' : ''}`,
    quick: QUICK,
    setup: setup(wordpress, php, mariadb),
    plugin,
    machine: { cpus: cpus().length, node: process.version, load_average_1m: Number(loadavg()[0].toFixed(2)) },
    date: date.toISOString(),
    part1_seconds: Math.round(part1Seconds),
    requests,
    checks,
    backfill: {
      bookings_generated: BOOKINGS,
      bookings_in_wordpress: wpBookings,
      rounds: BACKFILL_ROUNDS,
      reported: 'bridge_only and waypost: the median round of each by bookings/s; rounds: every round',
      bridge_only: bridgeOnly,
      waypost: real,
      waypost_vs_bridge_only_bookings_per_second: Number(backfill.ratio.toFixed(3)),
      per_round: backfillRounds.map((x) => ({
        bridge_only_bookings_per_second: x.bridge_only.bookings.bookings_per_second,
        waypost_bookings_per_second: x.waypost.bookings.bookings_per_second,
        bridge_only_records_per_second: x.bridge_only.records_per_second,
        waypost_records_per_second: x.waypost.records_per_second,
      })),
      checks: backfillChecks,
    },
    total_seconds: Math.round((Date.now() - started) / 1000),
  };

  const rows = SIDES.map((side) => {
    const r = requests[side];
    const added = r.added_ms ? [sign(r.added_ms.median), sign(r.added_ms.p90)] : ['baseline', ''];
    const shutdown = r.bridge_shutdown_ms;
    return `| ${side} | ${f(r.request_ms.median)} | ${f(r.request_ms.p90)} | ${added.join(' | ')} `
      + `| ${f(shutdown.median)} | ${f(shutdown.p90)} | ${f(shutdown.max)} |`;
  });
  const backfillRow = (name: string, x: typeof real) => `| ${name} | ${x.sent} | ${x.seconds} | `
    + `${x.records_per_second} | ${x.bookings.in_whole_batches} | ${x.bookings.seconds} | `
    + `${x.bookings.bookings_per_second} | ${x.peak_php_memory_mib} |`;
  const perRound = backfillRounds
    .map((x) => `${x.waypost.bookings.bookings_per_second} / ${x.bridge_only.bookings.bookings_per_second}`);
  const md = [
    `# Bridge benchmark, ${stamp}${QUICK ? ' (quick)' : ''}`,
    '',
    ...(plugin.changed_during_run
      ? ['**The plugin\'s files changed during this run: the figures mix two versions.**', '']
      : []),
    `\`${out.command}\` — plugin ${plugin.commit}`
      + `${plugin.uncommitted_changes ? ` with uncommitted changes (files ${plugin.sha256})` : ''}, `
      + `${out.machine.cpus} CPUs, load ${out.machine.load_average_1m} at the end, Node ${process.version}, `
      + `PHP ${php}, MariaDB ${mariadb}, WordPress ${wordpress}, ${out.total_seconds} s in all.`,
    '',
    `## A checkout request (${ROUNDS} per side, interleaved, after ${WARMUP} warm-up round(s))`,
    '',
    `${out.setup.checkout}. \`php -S\` cannot end the response before \`shutdown\`, so the client waits for the `
      + 'bridge\'s work here; on PHP-FPM/LiteSpeed it does not.',
    '',
    '| side | request median ms | request p90 ms | added median ms | added p90 ms '
      + '| bridge at shutdown median ms | p90 | max |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    ...Object.entries(out.setup.sides).map(([k, v]) => `- **${k}**: ${v}`),
    `- *added*: ${out.setup.added_ms}; *bridge at shutdown*: ${out.setup.bridge_shutdown_ms}.`,
    `- Checks: up bookings in Waypost ${checks.up_bookings_in_waypost}; off ${checks.off_bookings_in_waypost}; `
      + `down/hang/cooldown in Waypost ${checks.down_hang_cooldown_bookings_in_waypost}, in the retry queue `
      + `${checks.down_hang_cooldown_bookings_queued}; connections to the silent server per hang request `
      + `${checks.hang_connections_per_hang_request}.`,
    '',
    `## Backfill (${thousands(BOOKINGS)} generated bookings, batches of ${BATCH}; `
      + `median of ${BACKFILL_ROUNDS} round(s))`,
    '',
    '| run | records sent | seconds | records/s | bookings in whole batches | their seconds | bookings/s '
      + '| peak PHP MiB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    backfillRow('bridge only (Waypost stubbed in PHP)', bridgeOnly),
    backfillRow('Waypost (POST /host/v1/batch, SQLite)', real),
    '',
    `${thousands(wpBookings)} bookings in WordPress (generated, fixture, checkouts); each round sends them into a `
      + `fresh Waypost, which holds ${backfillChecks.waypost_bookings_after_each_round.join(', ')} bookings `
      + 'afterwards. Seconds are inside PHP (WordPress\' start per php call excluded); bookings/s from the batches '
      + `holding only bookings. Per round, bookings/s into Waypost / bridge only: ${perRound.join('; ')}. `
      + `Failed: ${backfillChecks.failed.join(', ')}; skipped (records the mapper gives nothing for): `
      + `${real.skipped}.`,
    '',
  ].join('\n');

  const base = `bridge-${stamp}${QUICK ? '-quick' : ''}`;
  const dir = new URL('../results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL(`${base}.json`, dir), `${JSON.stringify(out, null, 2)}\n`);
  writeFileSync(new URL(`${base}.md`, dir), md);
  console.log(`\n${md}`);
  console.log(`written: bench/results/${base}.json, bench/results/${base}.md`);
}
