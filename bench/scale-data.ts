// The scale data set: an NDJSON import file with N bookings, N/10 customers and N/2 payments (plus the 12 demo
// trips), streamed to disk so a million bookings never sit in memory. Same N → the same file, reused between runs.
// Shapes and values follow the demo catalogue (src/demo/catalogue.ts): statuses, names, currencies, line items.
import { createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { demoCatalogue, rng } from '../src/demo/catalogue.js';

const DAY = 86_400_000;
const EPOCH = Date.UTC(2019, 0, 1);
const FIRST = ['Ana', 'João', 'Maria', 'Liam', 'Olivia', 'Noah', 'Emma', 'Lucas', 'Sofia', 'Mateo', 'Hugo', 'Aiko'];
const LAST = ['Silva', 'Santos', 'Murphy', 'Walsh', 'Müller', 'Schmidt', 'Dubois', 'Rossi', 'Tanaka', 'Sharma',
  'Patel', 'Haddad', 'Larsen', 'Nkosi', 'Chen', 'García', 'Becker', 'Novak', 'Okafor', 'Kowalski'];
const STATUSES = ['pending', 'booked', 'reserved', 'completed', 'canceled'] as const;
const ascii = (s: string) => s.normalize('NFKD').replace(/[^\w]/g, '').toLowerCase();
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

export interface ScaleFile {
  path: string;
  bookings: number;
  customers: number;
  payments: number;
  lines: number;
}

export function scaleCounts(bookings: number) {
  const customers = Math.max(1, Math.floor(bookings / 10));
  const payments = Math.floor(bookings / 2);
  return { bookings, customers, payments, lines: 12 + customers + bookings + payments };
}

/** Writes (or reuses) bench/.data/scale-N.ndjson. `onProgress` gets the lines written so far. */
export async function scaleFile(bookings: number, onProgress?: (lines: number, total: number) => void)
  : Promise<ScaleFile> {
  const dir = join(import.meta.dirname, '.data');
  const path = join(dir, `scale-${bookings}.ndjson`);
  const counts = scaleCounts(bookings);
  if (existsSync(path)) return { path, ...counts };
  mkdirSync(dir, { recursive: true });
  const tmp = `${path}.partial`;
  const out = createWriteStream(tmp);
  let written = 0;
  let buffer: string[] = [];
  const emit = async (type: string, id: number, data: unknown) => {
    buffer.push(JSON.stringify({ type, id, data }));
    written++;
    if (buffer.length >= 5000) {
      if (!out.write(`${buffer.join('\n')}\n`)) await once(out, 'drain');
      buffer = [];
      if (written % 100_000 < 5000) onProgress?.(written, counts.lines);
    }
  };
  const random = rng(1_000_003);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const trips = demoCatalogue({ bookings: 1 }).trips;
  for (const t of trips) await emit('trip', t.id, t.data);
  const span = 6 * 365 * DAY;
  for (let i = 1; i <= counts.customers; i++) {
    const at = EPOCH + Math.floor((i / counts.customers) * span);
    const first = FIRST[i % FIRST.length];
    const last = LAST[i % LAST.length];
    await emit('customer', i, {
      email: `${ascii(first)}.${ascii(last)}.${i}@example.com`, first_name: first, last_name: last,
      phone: `+351 91${String(i).padStart(7, '0')}`, created_at: iso(at), updated_at: iso(at),
    });
  }
  const bookable = trips.filter((t) => t.data.status === 'publish');
  let paymentId = 0;
  for (let i = 1; i <= bookings; i++) {
    const customerId = 1 + Math.floor(random() * counts.customers);
    const first = FIRST[customerId % FIRST.length];
    const last = LAST[customerId % LAST.length];
    const trip = pick(bookable);
    const at = EPOCH + Math.floor((i / bookings) * span);
    const travellers = 1 + Math.floor(random() * 4);
    const price = Number(trip.data.price!.amount);
    const total = (price * travellers).toFixed(2);
    const status = STATUSES[Math.floor(random() * STATUSES.length)];
    // Most bookings never change after a few days; one in 50 is touched again long after (a late amendment).
    const updated = random() < 0.02 ? at + Math.floor(random() * span) : at + Math.floor(random() * 5) * DAY;
    await emit('booking', i, {
      status, booked_at: iso(at), currency: trip.data.price!.currency, total_amount: total,
      paid_amount: status === 'completed' ? total : '0.00', due_amount: status === 'completed' ? '0.00' : total,
      customer: { id: customerId, email: `${ascii(first)}.${ascii(last)}.${customerId}@example.com`,
        first_name: first, last_name: last },
      trips: [{ trip_id: trip.id, title: trip.data.title, start_date: iso(at + 60 * DAY).slice(0, 10), travellers,
        line_items: [{ label: 'Adult', quantity: travellers, price: price.toFixed(2), total }] }],
      engine_version: '6.8.2', cart_version: '4.2', created_at: iso(at),
      updated_at: iso(Math.min(updated, EPOCH + span)),
    });
    if (i % 2 === 0) {
      paymentId++;
      await emit('payment', paymentId, {
        booking_id: i, status: status === 'completed' ? 'completed' : 'pending', amount: total,
        currency: trip.data.price!.currency, gateway: pick(['stripe', 'paypal', 'bank-transfer']),
        transaction_id: `pi_${(i * 7919).toString(36)}`, is_due_payment: false,
        paid_at: status === 'completed' ? iso(at + 600_000) : null, created_at: iso(at), updated_at: iso(at),
      });
    }
  }
  if (buffer.length) out.write(`${buffer.join('\n')}\n`);
  out.end();
  await once(out, 'finish');
  renameSync(tmp, path);
  return { path, ...counts };
}

if (process.argv[1] === import.meta.filename) {
  const n = Number(process.argv[2] ?? 1_000_000);
  const started = Date.now();
  const file = await scaleFile(n, (lines, total) => process.stderr.write(`\rwriting ${lines}/${total} lines`));
  process.stderr.write(`\n${file.path}: ${file.lines} lines in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
