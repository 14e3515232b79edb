// Delivery-log reads at volume: 200,000 deliveries (10 webhooks, 1 attempt each) in a fresh SQLite file and a
// fresh PostgreSQL schema; the latency of the admin API's listing queries (first page, per webhook, per status,
// a deep page, a search by a traveller's e-mail and by a trip's title), one delivery's detail, and a retention prune
// of half the log. Results: bench/results/delivery-log.json.
// Run: npx tsx bench/delivery-log.ts [deliveries]
//   (PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432, skipped if absent)
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { createWaypost, type Waypost } from '../src/sdk.js';
import { createLogger } from '../src/log.js';
import { newId } from '../src/ids.js';
import { getDelivery, listDeliveries, type DeliveryQuery } from '../src/webhooks/delivery-log.js';
import { createWebhook } from '../src/webhooks/manage.js';
import { pruneDeliveryLog } from '../src/webhooks/retention.js';
import type { DeliveryAttemptRow, DeliveryRow, EventRow } from '../src/webhooks/tables.js';
import { freshDatabaseUrl, type TestDialect } from '../test/helpers/db.js';
import { hasPostgres } from '../test/helpers/services.js';

const COUNT = Number(process.argv[2] ?? 200_000);
const DAY = 86_400_000;
const START = Date.parse('2026-01-01T00:00:00Z');
const STATUSES = ['succeeded', 'succeeded', 'succeeded', 'failed', 'cancelled'] as const;

async function seed(wp: Waypost): Promise<string[]> {
  const hooks: string[] = [];
  for (let i = 0; i < 10; i++) {
    const input = { name: `Hook ${i}`, url: 'https://example.com/h', events: ['booking.created'] };
    hooks.push((await createWebhook(wp.core, input)).id);
  }
  const step = (60 * DAY) / COUNT; // spread over 60 days
  for (let from = 0; from < COUNT; from += 500) {
    const events: EventRow[] = [];
    const deliveries: DeliveryRow[] = [];
    const attempts: DeliveryAttemptRow[] = [];
    for (let i = from; i < Math.min(from + 500, COUNT); i++) {
      const t = START + Math.floor(i * step);
      const at = new Date(t).toISOString();
      const status = STATUSES[i % STATUSES.length];
      const evt = newId('evt', t);
      const dlv = newId('dlv', t);
      events.push({
        id: evt, type: 'booking.created', resource: 'bookings', record_id: i + 1,
        data: JSON.stringify({ id: i + 1, status: 'booked', total_amount: '1250.00' }),
        previous_attributes: null, test: 0, created_at: at,
      });
      deliveries.push({
        id: dlv, webhook_id: hooks[i % hooks.length], event_id: evt, event_type: 'booking.created', status,
        attempts: 1, next_attempt_at: null, lease_owner: null, lease_until: null,
        last_status: status === 'succeeded' ? 200 : 500, last_error: status === 'succeeded' ? null : 'HTTP 500',
        cancel_reason: status === 'cancelled' ? 'webhook disabled' : null, redelivery_of: null,
        order_key: null, waits_for: null,
        created_at: at, updated_at: at, completed_at: at,
      });
      attempts.push({
        id: newId('att', t), delivery_id: dlv, attempt: 1, started_at: at, duration_ms: 42,
        request_url: 'https://example.com/h', request_headers: '{"Content-Type":"application/json"}',
        request_body: events.at(-1)!.data, response_status: status === 'succeeded' ? 200 : 500,
        response_headers: '{}', response_body: 'ok', error: null, success: status === 'succeeded' ? 1 : 0,
      });
    }
    await wp.core.db.transaction().execute(async (trx) => {
      await trx.insertInto('events').values(events).execute();
      await trx.insertInto('deliveries').values(deliveries).execute();
      await trx.insertInto('delivery_attempts').values(attempts).execute();
    });
  }
  return hooks;
}

async function time(fn: () => Promise<unknown>, runs = 30): Promise<{ p50_ms: number; p95_ms: number }> {
  await fn(); // warm up
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  const pick = (q: number) => Number(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))].toFixed(2));
  return { p50_ms: pick(0.5), p95_ms: pick(0.95) };
}

async function run(dialect: TestDialect) {
  const now = START + 61 * DAY;
  const wp = await createWaypost({
    env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' }, logger: createLogger('silent'), clock: { now: () => now },
    config: { databaseUrl: await freshDatabaseUrl(dialect), logRetentionDays: 30 },
  });
  try {
    const seeding = performance.now();
    const hooks = await seed(wp);
    const seedSeconds = (performance.now() - seeding) / 1000;
    const list = (q: DeliveryQuery) => () => listDeliveries(wp.core, q);
    const some = (await listDeliveries(wp.core, { perpage: 1 })).items[0].id;
    // One traveller's two bookings, early and late in the log (their seeded events and the new ones), through the
    // write path, so the search reads the records' own index as the console does.
    const traveller = { email: 'ana.silva@example.com', first_name: 'Ana', last_name: 'Silva' };
    for (const id of [1042, Math.floor(COUNT * 0.9)]) {
      await wp.put('bookings', id, {
        status: 'booked', currency: 'EUR', total_amount: '1250.00', paid_amount: '0.00', customer: traveller,
        trips: [{ trip_id: 7, title: 'Douro Valley Wine Trail', start_date: '2026-05-01', travellers: 2,
          line_items: [] }], engine_version: '6.8.0', cart_version: '4.1',
      });
    }
    const queries = {
      first_page: await time(list({})),
      one_webhook: await time(list({ webhook_id: hooks[3] })),
      failed_only: await time(list({ status: 'failed' })),
      webhook_and_status: await time(list({ webhook_id: hooks[3], status: 'failed' })),
      page_100_of_20: await time(list({ page: 100 })),
      last_7_days: await time(list({ since: new Date(now - 7 * DAY).toISOString() })),
      search_email: await time(list({ q: 'ana.silva@example.com' })),
      search_trip: await time(list({ q: 'Douro Valley' })),
      search_email_failed: await time(list({ q: 'ana.silva@example.com', status: 'failed', webhook_id: hooks[3] })),
      detail: await time(() => getDelivery(wp.core, some)),
    };
    const pruning = performance.now();
    const pruned = await pruneDeliveryLog(wp.core); // 30-day retention over 60 days of log: about half goes
    const pruneSeconds = (performance.now() - pruning) / 1000;
    const found = (await listDeliveries(wp.core, { q: 'ana.silva@example.com' })).total;
    const result = {
      dialect, deliveries: COUNT, search_email_found: found, seed_seconds: Number(seedSeconds.toFixed(1)), queries,
      prune: { seconds: Number(pruneSeconds.toFixed(2)), ...pruned },
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
writeFileSync('bench/results/delivery-log.json', `${JSON.stringify({
  benchmark: 'delivery log: admin listing queries (20 per page) and retention pruning',
  setup: {
    deliveries: COUNT, webhooks: 10, attempts_per_delivery: 1, span_days: 60, retention_days: 30, runs_per_query: 30,
  },
  machine: { cpus: cpus().length, node: process.version },
  date: new Date().toISOString(),
  results,
}, null, 2)}\n`);
