// Payload and response retention at volume (issue 34): a million deliveries (10 webhooks, 1 attempt each, with a
// realistic payload and answer) over 60 days in a fresh SQLite file and a fresh PostgreSQL schema; then, timed:
// the log's retention as before (30 days: deletes about half), the first payload prune after payload_retention_days
// is set to 7 (blanks the 23 days between), the same for responses, an hourly run an hour later (blanks an hour's
// worth), and a run with nothing to do (reads no row: it starts where the last stopped). Rows per second each.
// Results: bench/results/body-retention.json.
// Run: npm run bench:body-retention [deliveries]   (default 1,000,000; PostgreSQL at TEST_DATABASE_URL or
//   127.0.0.1:5432, skipped if absent)
import { sql } from 'kysely';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { createWaypost, type Waypost } from '../src/sdk.js';
import { createLogger } from '../src/log.js';
import { newId } from '../src/ids.js';
import { updateAdminSettings } from '../src/admin/settings.js';
import { createWebhook } from '../src/webhooks/manage.js';
import { pruneDeliveryLog, type PruneResult } from '../src/webhooks/retention.js';
import type { DeliveryAttemptRow, DeliveryRow, EventRow } from '../src/webhooks/tables.js';
import { freshDatabaseUrl, type TestDialect } from '../test/helpers/db.js';
import { hasPostgres } from '../test/helpers/services.js';

const COUNT = Number(process.argv[2] ?? 1_000_000);
const DAY = 86_400_000;
const START = Date.parse('2026-01-01T00:00:00Z');
const BATCH = 500;

/** A booking as the API shows it (about 700 bytes), the payload's data. */
const record = (i: number) => JSON.stringify({
  id: i + 1, status: 'booked', booked_at: '2026-01-01T00:00:00.000Z', currency: 'EUR', total_amount: '1250.00',
  paid_amount: '250.00', due_amount: '1000.00',
  customer: { id: 10_000 + (i % 5000), email: `traveller${i % 5000}@example.com`, first_name: 'Ana', last_name: 'Silva',
    phone: '+351 912 345 678' },
  trips: [{ trip_id: 7, title: 'Douro Valley Wine Trail', start_date: '2026-05-01', end_date: '2026-05-07',
    travellers: 2, line_items: [{ label: 'Adult', quantity: 2, price: '625.00', total: '1250.00' }] }],
  payment_ids: [], engine_version: '6.8.0', cart_version: '4.1', data_complete: true,
  created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z',
});

async function seed(wp: Waypost): Promise<void> {
  const hooks: string[] = [];
  for (let i = 0; i < 10; i++) {
    const input = { name: `Hook ${i}`, url: 'https://example.com/h', events: ['booking.created'] };
    hooks.push((await createWebhook(wp.core, input)).id);
  }
  const step = (60 * DAY) / COUNT; // spread over 60 days
  let reported = 0;
  for (let from = 0; from < COUNT; from += BATCH) {
    const events: EventRow[] = [];
    const deliveries: DeliveryRow[] = [];
    const attempts: DeliveryAttemptRow[] = [];
    for (let i = from; i < Math.min(from + BATCH, COUNT); i++) {
      const t = START + Math.floor(i * step);
      const at = new Date(t).toISOString();
      const evt = newId('evt', t);
      const dlv = newId('dlv', t);
      const data = record(i);
      events.push({ id: evt, type: 'booking.created', resource: 'bookings', record_id: i + 1, data,
        previous_attributes: null, test: 0, created_at: at });
      deliveries.push({
        id: dlv, webhook_id: hooks[i % hooks.length], event_id: evt, event_type: 'booking.created', status: 'succeeded',
        attempts: 1, next_attempt_at: null, lease_owner: null, lease_until: null, last_status: 200, last_error: null,
        cancel_reason: null, redelivery_of: null, order_key: null, waits_for: null,
        created_at: at, updated_at: at, completed_at: at,
      });
      attempts.push({
        id: newId('att', t), delivery_id: dlv, attempt: 1, started_at: at, duration_ms: 42,
        request_url: 'https://example.com/h', request_headers: '{"Content-Type":"application/json"}',
        request_body: `{"id":"${evt}","type":"booking.created","created_at":"${at}","data":${data}}`,
        response_status: 200, response_headers: '{"content-type":"application/json","x-request-id":"req_1"}',
        response_body: `{"ok":true,"contact":"traveller${i % 5000}@example.com"}`, error: null, success: 1,
      });
    }
    await wp.core.db.transaction().execute(async (trx) => {
      await trx.insertInto('events').values(events).execute();
      await trx.insertInto('deliveries').values(deliveries).execute();
      await trx.insertInto('delivery_attempts').values(attempts).execute();
    });
    const done = Math.min(from + BATCH, COUNT);
    if (done - reported >= COUNT / 10 || done === COUNT) {
      reported = done;
      process.stderr.write(`  seeded ${done.toLocaleString('en')} of ${COUNT.toLocaleString('en')} deliveries\n`);
    }
  }
}

/** One prune, timed, with its rows per second (rows: what it deleted or blanked). */
async function timed(wp: Waypost, name: string): Promise<Record<string, unknown>> {
  process.stderr.write(`  ${name}… `);
  const t = performance.now();
  const r: PruneResult = await pruneDeliveryLog(wp.core);
  const seconds = (performance.now() - t) / 1000;
  const rows = r.deliveries + r.attempts + r.events + r.payloads + r.responses;
  process.stderr.write(`${seconds.toFixed(2)} s, ${rows.toLocaleString('en')} rows\n`);
  return {
    seconds: Number(seconds.toFixed(3)), rows, rows_per_second: seconds > 0 ? Math.round(rows / seconds) : null,
    deliveries: r.deliveries, attempts: r.attempts, events: r.events, payloads: r.payloads, responses: r.responses,
  };
}

async function run(dialect: TestDialect) {
  let now = START + 61 * DAY;
  const wp = await createWaypost({
    env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' }, logger: createLogger('silent'), clock: { now: () => now },
    config: { databaseUrl: await freshDatabaseUrl(dialect), logRetentionDays: 30, eventRetentionDays: 30 },
  });
  try {
    process.stderr.write(`${dialect}:\n`);
    const seeding = performance.now();
    await seed(wp);
    // Statistics as a live database has them (autovacuum analyzes a table as it grows): right after a bulk seed,
    // PostgreSQL plans a batch's `delivery_id IN (500 ids)` as a scan of the whole table (425 s at a million).
    await sql`ANALYZE`.execute(wp.core.db);
    const seedSeconds = (performance.now() - seeding) / 1000;
    // The log's retention as it was: no body setting, about half the log goes.
    const log = await timed(wp, 'log retention (30 days)');
    await updateAdminSettings(wp.core, { payload_retention_days: 7 });
    const payloads = await timed(wp, 'first payload prune (7 days)');
    await updateAdminSettings(wp.core, { response_retention_days: 7 });
    const responses = await timed(wp, 'first response prune (7 days)');
    now += 3_600_000;
    const hourly = await timed(wp, 'the next hourly run');
    const idle = await timed(wp, 'a run with nothing to do');
    const result = {
      dialect, deliveries: COUNT, seed_seconds: Number(seedSeconds.toFixed(1)),
      log_retention: log, first_payload_prune: payloads, first_response_prune: responses, hourly, idle,
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
writeFileSync('bench/results/body-retention.json', `${JSON.stringify({
  benchmark: 'payload and response retention: one prune run of bodies against the log retention\'s own run',
  setup: {
    deliveries: COUNT, webhooks: 10, attempts_per_delivery: 1, span_days: 60, log_retention_days: 30,
    payload_retention_days: 7, response_retention_days: 7, batch: BATCH,
  },
  machine: { cpus: cpus().length, node: process.version },
  date: new Date().toISOString(),
  results,
}, null, 2)}\n`);
