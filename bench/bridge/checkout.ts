// Part 1: a checkout request timed with forwarding off, Waypost up, down and hanging, and in the bridge's cool-down.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import type { Waypost } from '../../src/sdk.js';
import type { WordPress } from '../../test/bridge/wordpress.js';
import { FROM, ROUNDS, SIDES, UNREACHABLE_OPTION, WARMUP, progress, type Side } from './options.js';
import type { SilentServer } from './servers.js';
import { round1, summary, type Summary } from './stats.js';

const perSide = (): Record<Side, number[]> => ({ off: [], up: [], down: [], hang: [], cooldown: [] });

/** One checkout on a side: the time the client saw, the bridge's time at shutdown, the booking's id. */
async function checkout(wp: WordPress, side: Side, key: string) {
  const target = side === 'off' ? 'up' : side === 'cooldown' ? 'hang' : side;
  const url = `${wp.url}/?waypost_bench=1&key=${key}&from=${FROM}`
    + `&email=${encodeURIComponent(`${key}@example.org`)}&waypost_target=${target}`
    + (side === 'off' ? '&waypost_off=1' : '');
  const t0 = performance.now();
  const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(30_000) });
  const body = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 302) throw new Error(`checkout (${side}) answered ${res.status}: ${body.slice(0, 500)}`);
  const header = Object.fromEntries((res.headers.get('x-waypost-bench') ?? '').split(';')
    .map((p) => p.trim().split('=')).map(([k, v]) => [k, Number(v)]));
  const shutdownLog = await readFile(path.join(wp.dir, '.waypost-bench-shutdown-ms'), 'utf8').catch(() => '');
  const line = shutdownLog.split('\n').find((l) => l.startsWith(`${key} `));
  return { ms, shutdownMs: line ? Number(line.split(' ')[1]) : NaN, booking: header.booking as number };
}

export async function measureCheckouts(wp: WordPress, db: Waypost['core']['db'], silent: SilentServer) {
  const clearCoolDown = () => wp.sql(`DELETE FROM wp_options WHERE option_name = '${UNREACHABLE_OPTION}';`);
  let seq = 0;
  const ids = perSide();
  const requestMs = perSide();
  const shutdownMs = perSide();
  const addedMs = perSide();

  // One round: off, up, down and the hang + cooldown pair, in an order that rotates every round.
  const units: Side[][] = [['off'], ['up'], ['down'], ['hang', 'cooldown']];
  async function runRound(r: number, record: boolean) {
    const got: Partial<Record<Side, { ms: number; shutdownMs: number }>> = {};
    for (let u = 0; u < units.length; u++) {
      for (const side of units[(u + r) % units.length]) {
        const c = await checkout(wp, side, `${side}-${++seq}`);
        got[side] = c;
        if (record) {
          requestMs[side].push(c.ms);
          shutdownMs[side].push(c.shutdownMs);
          ids[side].push(c.booking);
        }
      }
      // After the hang + cooldown pair: the next hang meets a fresh timeout, the other sides no cool-down.
      if (units[(u + r) % units.length][0] === 'hang') await clearCoolDown();
    }
    if (record) for (const side of SIDES) addedMs[side].push(got[side]!.ms - got.off!.ms);
    return got;
  }

  await clearCoolDown();
  progress(`warm-up: ${WARMUP} untimed round(s)…`);
  for (let w = 0; w < WARMUP; w++) await runRound(w, false);
  const hangConnectionsBefore = silent.connections();
  const part1Started = Date.now();
  for (let r = 0; r < ROUNDS; r++) {
    const got = await runRound(r, true);
    const sides = SIDES.map((s) => `${s} ${got[s]!.ms.toFixed(0)} ms (shutdown ${got[s]!.shutdownMs.toFixed(1)})`);
    progress(`round ${String(r + 1).padStart(2)}/${ROUNDS}: ${sides.join(', ')}`);
  }
  const part1Seconds = (Date.now() - part1Started) / 1000;

  // Checks: the up bookings are in Waypost; the others are not, and wait in the queue.
  const inWaypost = async (list: number[]) => list.length
    ? Number((await sql<{ n: number }>`SELECT COUNT(*) AS n FROM bookings WHERE id IN (${sql.join(list)})`
      .execute(db)).rows[0].n)
    : 0;
  const queued = async (list: number[]) => list.length
    ? Number((await wp.sql('SELECT COUNT(*) FROM wp_waypost_queue'
      + ` WHERE resource = 'bookings' AND record_id IN (${list.join(',')})`)).trim())
    : 0;
  const unsent = [...ids.down, ...ids.hang, ...ids.cooldown];
  const checks = {
    up_bookings_in_waypost: `${await inWaypost(ids.up)}/${ids.up.length}`,
    off_bookings_in_waypost: `${await inWaypost(ids.off)}/${ids.off.length}`,
    down_hang_cooldown_bookings_in_waypost: `${await inWaypost(unsent)}/${unsent.length}`,
    down_hang_cooldown_bookings_queued: `${await queued(unsent)}/${unsent.length}`,
    hang_connections_per_hang_request: round1((silent.connections() - hangConnectionsBefore) / ROUNDS),
  };
  progress(`checks: ${JSON.stringify(checks)}`);

  const requests = Object.fromEntries(SIDES.map((side) => [side, {
    request_ms: summary(requestMs[side]),
    added_ms: side === 'off' ? null : summary(addedMs[side]),
    bridge_shutdown_ms: summary(shutdownMs[side]),
  }])) as Record<Side, { request_ms: Summary; added_ms: Summary | null; bridge_shutdown_ms: Summary }>;
  return { requests, checks, part1Seconds };
}
