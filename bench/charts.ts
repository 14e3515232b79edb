// The console's charts at a million deliveries (issue 37): a million attempts' worth of counters written through
// the write path's own upsert (src/webhooks/stats/counts.ts) over 30 days for 10 webhooks, plus 30 days of hourly
// calls for 5 API keys, in a fresh SQLite file and a fresh PostgreSQL schema; then the chart endpoints' latency
// through the admin HTTP API (Fastify inject, admin bearer token). The endpoints read no delivery rows (proved by
// test/webhooks/stats/stats-plan.test.ts), so the delivery log itself is not seeded. Results: bench/results/charts.json
// Run: npm run bench:charts [deliveries]   (PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432, skipped if absent)
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { createWaypost } from '../src/sdk.js';
import { createLogger } from '../src/log.js';
import { createApiKey } from '../src/api/keys.js';
import { rotateAdminToken } from '../src/admin/token.js';
import { createWebhook } from '../src/webhooks/manage.js';
import { statRows, upsertStats, type StatEntry, type StatOutcome } from '../src/webhooks/stats/counts.js';
import { pruneStats } from '../src/webhooks/stats/read.js';
import { freshDatabaseUrl, type TestDialect } from '../test/helpers/db.js';
import { hasPostgres } from '../test/helpers/services.js';

const COUNT = Number(process.argv[2] ?? 1_000_000);
const DAY = 86_400_000;
const NOW = Date.parse('2026-03-01T12:00:00Z');
const RUNS = 50;

/** 90% succeeded, 7% retried, 3% failed; latencies spread from 5 ms to a few seconds. */
function entry(i: number, hooks: string[]): StatEntry {
  const r = (i * 2654435761) % 1000;
  const outcome: StatOutcome = r < 900 ? 'succeeded' : r < 970 ? 'retried' : 'failed';
  return { webhookId: hooks[i % hooks.length], atMs: NOW - 30 * DAY + Math.floor((i * 30 * DAY) / COUNT),
    durationMs: 5 + ((i * 7919) % 1000) ** 2 / 300, outcome };
}

async function time(fn: () => Promise<unknown>): Promise<{ p50_ms: number; p95_ms: number; max_ms: number }> {
  await fn();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  const pick = (q: number) => Number(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))].toFixed(2));
  return { p50_ms: pick(0.5), p95_ms: pick(0.95), max_ms: Number(samples.at(-1)!.toFixed(2)) };
}

async function run(dialect: TestDialect) {
  const wp = await createWaypost({
    env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' }, logger: createLogger('silent'), clock: { now: () => NOW },
    config: { databaseUrl: await freshDatabaseUrl(dialect), logRetentionDays: 30 },
  });
  try {
    const hooks: string[] = [];
    for (let i = 0; i < 10; i++) {
      hooks.push((await createWebhook(wp.core, { name: `Hook ${i}`, url: 'https://example.com/h',
        events: ['booking.created'] })).id);
    }
    const seeding = performance.now();
    for (let from = 0; from < COUNT; from += 500) {
      const chunk = Array.from({ length: Math.min(500, COUNT - from) }, (_, k) => entry(from + k, hooks));
      await upsertStats(wp.core.db, statRows(chunk)).execute();
    }
    const key = await createApiKey(wp.core, { label: 'bench', permissions: ['bookings.read'] });
    for (let k = 0; k < 5; k++) {
      const keyId = k === 0 ? key.id : `key_bench_${k}`;
      const rows = Array.from({ length: 720 }, (_, h) => ({ key_id: keyId, hour: NOW - 30 * DAY + h * 3_600_000,
        ok: 900 + h % 100, client_errors: h % 17, rate_limited: h % 5, server_errors: h % 3 }));
      for (let i = 0; i < rows.length; i += 200) {
        await wp.core.db.insertInto('api_usage_hours').values(rows.slice(i, i + 200)).execute();
      }
    }
    const pruned = await pruneStats(wp.core, NOW - 30 * DAY); // minute rows past 2 days go, as in production
    const seedSeconds = (performance.now() - seeding) / 1000;
    const counterRows = await wp.core.db.selectFrom('webhook_stats')
      .select((eb) => [eb.fn.countAll().as('rows'), eb.fn.sum('n').as('n')]).where('unit', '=', 'h')
      .executeTakeFirstOrThrow();
    const app = await wp.app();
    const headers = { authorization: `Bearer ${await rotateAdminToken(wp.core)}` };
    const get = (url: string) => async () => {
      const res = await app.inject({ method: 'GET', url: `/admin/api${url}`, headers });
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    };
    const endpoints = {
      webhook_24h: await time(get(`/webhooks/${hooks[3]}/stats?range=24h`)),
      webhook_7d: await time(get(`/webhooks/${hooks[3]}/stats?range=7d`)),
      webhook_30d: await time(get(`/webhooks/${hooks[3]}/stats?range=30d`)),
      health_all_webhooks: await time(get('/webhooks/health?range=24h')),
      key_usage_30d: await time(get(`/keys/${key.id}/usage/series?range=30d`)),
    };
    const result = {
      dialect, deliveries: COUNT, seed_seconds: Number(seedSeconds.toFixed(1)), pruned_minute_rows: pruned,
      hour_rows: Number(counterRows.rows), attempts_in_hour_rows: Number(counterRows.n), endpoints,
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await wp.close();
  }
}

const dialects: TestDialect[] = (await hasPostgres()) ? ['sqlite', 'postgres'] : ['sqlite'];
const results = [];
for (const dialect of dialects) results.push(await run(dialect));
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/charts.json', `${JSON.stringify({
  benchmark: 'console charts: admin chart endpoints answered from counters (issue 37, target < 50 ms)',
  setup: { deliveries: COUNT, webhooks: 10, api_keys: 5, span_days: 30, runs_per_endpoint: RUNS },
  machine: { cpus: cpus().length, node: process.version, note: 'shared with other jobs while measured' },
  results,
}, null, 2)}\n`);
