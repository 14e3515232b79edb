// The latency half of bench/webhooks.ts: event-commit → receiver latency with events committed at a steady rate
// (BENCH_RATE per second for BENCH_LATENCY_SECONDS), each turn a child process (latency-child.ts) on this tree or on
// BENCH_BASELINE_REF's (before-tree.ts), interleaved over BENCH_LATENCY_ROUNDS rounds, so a before/after is
// measured in one run on one machine. Each turn's process first runs BENCH_LATENCY_WARM_SECONDS (default 2) of the
// same load, reported apart as the first seconds after start; the measured seconds are the steady state.
import { fork } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { freshDatabaseUrl, type TestDialect } from '../test/helpers/db.js';
import { PG_URL } from '../test/helpers/services.js';
import { beforeTree, ROOT } from './before-tree.js';
import type { Receiver } from './webhooks.js';

const RATE = Number(process.env.BENCH_RATE ?? 200);
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 10);
const DIALECT = (process.env.BENCH_DIALECT ?? 'sqlite') as TestDialect;
const LATENCY_ROUNDS = Math.max(1, Number(process.env.BENCH_LATENCY_ROUNDS ?? 3));
const WARM_SECONDS = Number(process.env.BENCH_LATENCY_WARM_SECONDS ?? 2);
export const BASELINE_REF = process.env.BENCH_BASELINE_REF;
const BASE_TREE = BASELINE_REF ? beforeTree(BASELINE_REF) : undefined;

const round = (n: number, d = 1) => Number(n.toFixed(d));

function percentiles(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
  return { p50: round(at(50)), p95: round(at(95)), p99: round(at(99)), max: round(s[s.length - 1]), samples: s.length };
}

async function dropDatabase(databaseUrl: string) {
  const schema = /search_path=(t_\w+)/.exec(decodeURIComponent(databaseUrl))?.[1];
  if (!schema) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

export async function latency(receiver: Receiver, webhooks: number, tree: string) {
  const databaseUrl = await freshDatabaseUrl(DIALECT);
  const child = fork(join(import.meta.dirname, 'latency-child.ts'),
    [tree, databaseUrl, receiver.url, String(webhooks), String(RATE)],
    { execArgv: ['--import', 'tsx'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const next = <T>(type: string) => Promise.race([
    new Promise<T>((resolve) => {
      const on = (m: { type: string }) => {
        if (m.type === type) {
          child.off('message', on);
          resolve(m as T);
        }
      };
      child.on('message', on);
    }),
    exited.then((code) => { throw new Error(`latency child (${tree}) exited with ${code}`); }),
  ]);
  /** One phase: `count` events from record id `first` at RATE; each delivery's commit → receiver time. */
  const phase = async (first: number, count: number) => {
    await receiver.reset();
    const reached = receiver.expect(count * webhooks);
    const done = next<{ committed: number[]; offered: number }>('committed');
    child.send({ type: 'go', first, count });
    const { committed, offered } = await done;
    await reached;
    const { ids, times } = await receiver.report();
    const lat = ids.map((id, k) => times[k] - (committed[id - first] ?? NaN)).filter((v) => Number.isFinite(v));
    return { lat, offered };
  };
  try {
    await next('ready');
    // The first WARM_SECONDS after the process starts are reported apart: cold JIT, connections and caches made
    // the first second's deliveries wait 200-400 ms on SQLite, which is a start, not the steady state.
    const cold = WARM_SECONDS > 0 ? await phase(1_000_001, RATE * WARM_SECONDS) : undefined;
    const events = RATE * LATENCY_SECONDS;
    const { lat, offered } = await phase(1, events);
    child.send({ type: 'close' });
    await exited;
    return {
      webhooks, events, offered_events_per_second: round(offered), deliveries: lat.length,
      latency_ms: percentiles(lat),
      ...(cold ? { first_seconds_after_start: { seconds: WARM_SECONDS, latency_ms: percentiles(cold.lat) } } : {}),
    };
  } finally {
    child.kill();
    await dropDatabase(databaseUrl);
  }
}

/**
 * Latency turns of this tree and, with BENCH_BASELINE_REF, of that commit, interleaved (this, base, this, base, …;
 * the first pair's order swaps every round) for LATENCY_ROUNDS rounds: each side's median round by p99, every
 * round, and the median of the per-round p99 ratios.
 */
export async function latencyRounds(receiver: Receiver, webhooks: number) {
  type Turn = Awaited<ReturnType<typeof latency>>;
  const current: Turn[] = [];
  const base: Turn[] = [];
  const ratios: number[] = [];
  for (let r = 1; r <= LATENCY_ROUNDS; r++) {
    const turns = BASE_TREE ? (r % 2 ? ['this', 'base'] : ['base', 'this']) : ['this'];
    for (const side of turns) {
      const label = side === 'this' ? 'this tree' : BASELINE_REF;
      console.error(`latency round ${r}/${LATENCY_ROUNDS} (${label}): ${RATE} events/s for ${LATENCY_SECONDS} s `
        + `x ${webhooks} webhook(s)…`);
      const l = await latency(receiver, webhooks, side === 'this' ? ROOT : BASE_TREE!);
      const { p50, p95, p99 } = l.latency_ms;
      const cold = l.first_seconds_after_start ? `; first ${WARM_SECONDS} s after start: p99 `
        + `${l.first_seconds_after_start.latency_ms.p99} ms` : '';
      console.error(`  p50 ${p50} / p95 ${p95} / p99 ${p99} ms${cold}`);
      (side === 'this' ? current : base).push(l);
    }
    if (BASE_TREE) ratios.push(current[r - 1].latency_ms.p99 / base[r - 1].latency_ms.p99);
  }
  const medianTurn = (turns: Turn[]) => [...turns].sort((x, y) => x.latency_ms.p99 - y.latency_ms.p99)[
    Math.floor(turns.length / 2)];
  const rounds = (turns: Turn[]) => turns.map((t) => {
    const { p50, p95, p99 } = t.latency_ms;
    return { p50, p95, p99, first_seconds_p99: t.first_seconds_after_start?.latency_ms.p99 ?? null };
  });
  return {
    ...medianTurn(current),
    rounds: rounds(current),
    ...(BASE_TREE ? {
      baseline: { ref: BASELINE_REF, ...medianTurn(base), rounds: rounds(base) },
      p99_vs_baseline: round(ratios.sort((a, b) => a - b)[Math.floor(ratios.length / 2)], 2),
    } : {}),
  };
}
