// The cost of payload filters per host write (issue 36): the same booking writes with 10 webhooks subscribed, all
// unfiltered, then all with a 4-condition filter (half the bookings pass), in a fresh SQLite file and a fresh
// PostgreSQL schema; batches alternate between the two setups so machine noise hits both alike. Also the filter's
// evaluation alone. Results and ratios: bench/results/filters.json.
// Run: npm run bench:filters [-- writes]   (PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432, skipped if absent)
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { createWaypost, type Waypost } from '../src/sdk.js';
import { createLogger } from '../src/log.js';
import { createWebhook } from '../src/webhooks/manage.js';
import { matches } from '../src/webhooks/filters/language.js';
import { checkFilter } from '../src/webhooks/filters/validate.js';
import { freshDatabaseUrl, type TestDialect } from '../test/helpers/db.js';
import { hasPostgres } from '../test/helpers/services.js';

const WRITES = Number(process.argv[2] ?? 400);
const BATCH = 50;
const FILTER = { all: [
  { field: 'data.status', in: ['booked', 'completed'] },
  { field: 'data.currency', eq: 'EUR' },
  { any: [{ field: 'data.total_amount', gte: 1000 }, { field: 'data.trips[].trip_id', eq: 7 }] },
  { field: 'data.customer.email', ends_with: '@example.com' },
] };

const booking = (i: number) => ({
  status: 'booked', currency: i % 2 === 0 ? 'EUR' : 'USD', total_amount: '1250.00', paid_amount: '250.00',
  customer: { email: `guest${i}@example.com`, first_name: 'Ana', last_name: 'Silva' },
  trips: [{ trip_id: 7, title: 'Douro Valley', start_date: '2027-05-01', travellers: 2,
    line_items: [{ label: 'Adult', quantity: 2, price: '625.00', total: '1250.00' }] }],
  engine_version: '6.8.0', cart_version: '4.1',
});

async function open(dialect: TestDialect, filtered: boolean): Promise<Waypost> {
  const wp = await createWaypost({ env: {}, logger: createLogger('silent'),
    config: { databaseUrl: await freshDatabaseUrl(dialect), allowPrivateTargets: true } });
  for (let i = 0; i < 10; i++) {
    await createWebhook(wp.core, { name: `Hook ${i}`, url: 'http://127.0.0.1:9/h', events: ['booking.created'],
      ...(filtered ? { filter: FILTER } : {}) });
  }
  return wp;
}

async function run(dialect: TestDialect) {
  const setups = { unfiltered: await open(dialect, false), filtered: await open(dialect, true) };
  const ms = { unfiltered: 0, filtered: 0 };
  let id = 0;
  for (let done = 0; done < WRITES; done += BATCH) {
    for (const name of ['unfiltered', 'filtered'] as const) {
      const start = performance.now();
      for (let i = 0; i < BATCH; i++) await setups[name].put('bookings', id + i + 1, booking(id + i));
      ms[name] += performance.now() - start;
    }
    id += BATCH;
  }
  const count = async (wp: Waypost) => Number((await wp.core.db.selectFrom('deliveries')
    .select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const deliveries = { unfiltered: await count(setups.unfiltered), filtered: await count(setups.filtered) };
  await setups.unfiltered.close();
  await setups.filtered.close();
  const perWrite = (n: number) => Math.round((n / WRITES) * 1000) / 1000;
  return {
    dialect, writes: WRITES, webhooks: 10, deliveries,
    ms_per_write: { unfiltered: perWrite(ms.unfiltered), filtered: perWrite(ms.filtered) },
    ratio_filtered_to_unfiltered: Math.round((ms.filtered / ms.unfiltered) * 1000) / 1000,
  };
}

/** The filter alone: µs per evaluation of the 4-condition filter on one booking envelope. */
function evaluation() {
  const node = checkFilter(FILTER, ['booking.created'])!;
  const envelope = { data: { ...booking(0), id: 1, payment_ids: [], data_complete: true }, previous_attributes: null };
  const n = 200_000;
  const start = performance.now();
  let passed = 0;
  for (let i = 0; i < n; i++) if (matches(node, envelope)) passed++;
  const us = ((performance.now() - start) * 1000) / n;
  return { evaluations: n, passed, us_per_evaluation: Math.round(us * 1000) / 1000 };
}

const results = [await run('sqlite')];
if (await hasPostgres()) results.push(await run('postgres'));
const out = { date: new Date().toISOString(), cpus: cpus().length, filter: FILTER, evaluation: evaluation(), results };
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/filters.json', `${JSON.stringify(out, null, 2)}\n`);
console.log(JSON.stringify(out, null, 2));
