// Erasing and exporting one traveller at a small site and at a million records (npm run bench:privacy [-- N]
// [--postgres]): both sites are seeded in bulk (customers, bookings, payments, events, deliveries and their attempts:
// N each; enquiries and reviews N/10; SQLite's search index filled), then five people are written through the host
// write path (a customer, a booking with a payment, an enquiry, two reviews, one with their e-mail; their events and
// deliveries) and each is previewed, exported and erased. Reported: the median time of each at both sizes and its
// ratio: what an erasure costs should follow what the person has, not the size of the site. Writes
// bench/results/privacy.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sql } from 'kysely';
import { freshDatabaseUrl } from '../test/helpers/db.js';
import { createWaypost, type Waypost } from '../src/sdk.js';
import { createLogger } from '../src/log.js';
import { createWebhook } from '../src/webhooks/manage.js';
import { eraseNow, exportPerson, previewErasure } from '../src/privacy/index.js';

const N = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 1_000_000);
const SMALL = 10_000;
const POSTGRES = process.argv.includes('--postgres');
const PEOPLE = 5;
const BENCH = { type: 'cli', name: 'bench', ip: null } as const;
const HERE = resolve(new URL('..', import.meta.url).pathname);
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

/** Everyone else, in bulk: `n` of each record, event, delivery and attempt (enquiries and reviews n/10). */
async function seed(wp: Waypost, n: number): Promise<void> {
  const db = wp.core.db;
  const now = new Date().toISOString();
  const seq = (m: number) => sql`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${m})`;
  const step = async (what: string, statement: ReturnType<typeof sql>) => {
    const t = performance.now();
    await statement.execute(db);
    log(`  ${what}: ${Math.round(performance.now() - t)} ms`);
  };
  const customer = `'{"id":0,"email":"c@example.com","first_name":"Some","last_name":"One","phone":null,`
    + `"address":{"line1":null,"city":null,"state":null,"postcode":null,"country":null}}'`;
  await step('customers', sql`${seq(n)} INSERT INTO customers (id, data, email, search_text, created_at, updated_at)
    SELECT 1000000 + i, ${sql.raw(customer)}, 'c' || i || '@example.com', '', ${now}, ${now} FROM s`);
  await step('bookings', sql`${seq(n)} INSERT INTO bookings (id, data, status, customer_id, customer_email, visible,
    booked_at, search_text, created_at, updated_at)
    SELECT 1000000 + i, '{"customer":null}', 'booked', 1000000 + i, 'c' || i || '@example.com', 1, ${now}, '',
      ${now}, ${now} FROM s`);
  await step('payments', sql`${seq(n)} INSERT INTO payments (id, data, booking_id, status, search_text, created_at,
    updated_at) SELECT 1000000 + i, '{}', 1000000 + i, 'completed', '', ${now}, ${now} FROM s`);
  await step('enquiries', sql`${seq(n / 10)} INSERT INTO enquiries (id, data, email, created_at)
    SELECT 1000000 + i, '{"full_name":"Some One","phone":null}', 'c' || i || '@example.com', ${now} FROM s`);
  // Half of the reviews with an author e-mail's hash (the bridge sends one), half without (found by name).
  await step('reviews', sql`${seq(n / 10)} INSERT INTO reviews (id, data, trip_id, author, author_email_sha256,
    created_at) SELECT 1000000 + i, '{}', 7, 'author ' || i, CASE WHEN i % 2 = 0 THEN 'h' || i END, ${now} FROM s`);
  await step('events', sql`${seq(n)} INSERT INTO events (id, type, resource, record_id, data, test, created_at)
    SELECT 'evt_' || (1000000 + i), 'booking.created', 'bookings', 1000000 + i, '{"id":1}', 0, ${now} FROM s`);
  await step('deliveries', sql`INSERT INTO deliveries (id, webhook_id, event_id, event_type, status, attempts,
    created_at, updated_at) SELECT 'dlv_' || substr(id, 5), 'wh_other', id, type, 'succeeded', 1, created_at,
    created_at FROM events`);
  await step('attempts', sql`INSERT INTO delivery_attempts (id, delivery_id, attempt, started_at, duration_ms,
    request_url, request_headers, request_body, response_status, success)
    SELECT 'att_' || substr(id, 5), id, 1, created_at, 5, 'http://x', '{}', '{"data":{"id":1}}', 200, 1
    FROM deliveries`);
  if (wp.core.store.dialect === 'sqlite') {
    await step('search index', sql`INSERT INTO bookings_fts (rowid, search_text)
      SELECT id, 'b' || id || ' ' || customer_email || ' some one douro valley walk' FROM bookings`);
    await step('search index', sql`INSERT INTO customers_fts (rowid, search_text)
      SELECT id, id || ' ' || email || ' some one' FROM customers`);
  }
  await step('analyze', sql`ANALYZE`);
}

async function person(wp: Waypost, i: number): Promise<string> {
  const email = `traveller${i}@example.org`;
  await wp.put('customers', 10 + i, { email, first_name: `Traveller${i}`, last_name: 'Benchmark',
    phone: '+1 555 0100' });
  await wp.put('bookings', 100 + i, { status: 'booked', currency: 'EUR', total_amount: '10.00', customer:
    { id: 10 + i, email }, engine_version: '6.8.0', cart_version: '4.1' });
  await wp.put('payments', 200 + i, { booking_id: 100 + i, status: 'completed', amount: '10.00', currency: 'EUR' });
  await wp.put('enquiries', 300 + i, { full_name: `Traveller${i} Benchmark`, email });
  await wp.put('reviews', 400 + i, { trip_id: 7, author_name: `Traveller${i} Benchmark`, author_email: email });
  await wp.put('reviews', 500 + i, { trip_id: 7, author_name: `Traveller${i} Benchmark` });
  return email;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(size: number): Promise<Record<string, number>> {
  log(`site of ${size.toLocaleString()} (${POSTGRES ? 'PostgreSQL' : 'SQLite'}): seeding`);
  const wp = await createWaypost({ env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' }, logger: createLogger('warn'),
    config: { databaseUrl: await freshDatabaseUrl(POSTGRES ? 'postgres' : 'sqlite') } });
  try {
    await seed(wp, size);
    await createWebhook(wp.core, { name: 'CRM', url: 'http://127.0.0.1:9/hook', events: ['booking.created',
      'customer.created', 'enquiry.created', 'review.created', 'customer.erased'] });
    const times: Record<string, number[]> = { preview: [], export: [], erase: [] };
    for (let i = 0; i < PEOPLE; i++) {
      const email = await person(wp, i);
      for (const [name, run] of [['preview', () => previewErasure(wp.core, { email })],
        ['export', () => exportPerson(wp.core, { email }, BENCH)],
        ['erase', () => eraseNow(wp.core, { email }, BENCH)]] as const) {
        const t = performance.now();
        await run();
        times[name].push(performance.now() - t);
      }
      log(`  person ${i + 1}/${PEOPLE}: erased in ${times.erase[i].toFixed(1)} ms`);
    }
    return Object.fromEntries(Object.entries(times).map(([k, v]) => [`${k}_ms`, Number(median(v).toFixed(1))]));
  } finally {
    await wp.close();
  }
}

const small = await measure(SMALL);
const large = await measure(N);
const ratios = Object.fromEntries(Object.keys(small).map((k) => [k.replace('_ms', ''),
  Number((large[k] / small[k]).toFixed(2))]));
const result = { database: POSTGRES ? 'postgres' : 'sqlite', people: PEOPLE, small: { size: SMALL, ...small },
  large: { size: N, ...large }, ratio_large_to_small: ratios, at: new Date().toISOString() };
console.log(JSON.stringify(result, null, 2));
mkdirSync(join(HERE, 'bench/results'), { recursive: true });
const out = join(HERE, `bench/results/privacy${POSTGRES ? '-postgres' : ''}.json`);
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
