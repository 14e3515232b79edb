// Crash safety: a real worker process (`waypost serve --role worker`) is killed with SIGKILL in the middle of a
// burst of 1,000 events, then restarted. Every delivery ends succeeded and reached the receiver at least once;
// duplicates are allowed and carry the same X-Waypost-Delivery.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabaseUrl } from '../../helpers/db.js';
import { createWaypost, type Waypost } from '../../../src/sdk.js';
import { createLogger } from '../../../src/log.js';
import { verifySignature } from '../../../src/index.js';
import { startReceiver, type Receiver } from './receiver.js';
import { addWebhook, booking } from './fixtures.js';
import { outOfOrder, versionOf } from './versions.js';

const EVENTS = 1_000;

function startWorkerProcess(databaseUrl: string, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--role', 'worker'], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      WAYPOST_ALLOW_PRIVATE_TARGETS: 'true',
      WAYPOST_LEASE_MS: '1500',
      WAYPOST_POLL_MS: '100',
      WAYPOST_DELIVERY_CONCURRENCY: '16',
      LOG_LEVEL: 'error',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

const exited = (p: ChildProcess) => new Promise<void>((resolve) => (p.exitCode !== null || p.signalCode !== null
  ? resolve() : p.once('exit', () => resolve())));

describe.each(DIALECTS)('crash safety on %s', (dialect) => {
  let wp: Waypost | null = null;
  let receiver: Receiver | null = null;
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) { c.kill('SIGKILL'); await exited(c); }
    await wp?.close();
    await receiver?.close();
  });

  it('loses no delivery when the worker is killed with SIGKILL mid-burst and restarted', { timeout: 90_000 },
    async () => {
    const databaseUrl = await freshDatabaseUrl(dialect);
    // The host side: writes events; its own process runs no worker.
    wp = await createWaypost({ env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' }, config: { databaseUrl },
      logger: createLogger('silent') });
    receiver = await startReceiver((_req, res) => { setTimeout(() => res.writeHead(200).end('ok'), 15); });
    const hook = await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });

    const first = startWorkerProcess(databaseUrl);
    children.push(first);
    const put = (i: number) => wp!.put('enquiries', i, { full_name: `Guest ${i}`, email: `guest${i}@example.com` });
    await put(1);
    await receiver.waitFor(1, 30_000); // the worker is up
    // The burst is paced (about 200 events/s) so the kill lands in its middle on every machine.
    let written = 1;
    const burst = (async () => {
      for (let i = 2; i <= EVENTS; i++) {
        await put(i);
        written = i;
        if (i % 10 === 0) await new Promise((r) => setTimeout(r, 50));
      }
    })();

    await receiver.waitFor(200, 60_000);
    first.kill('SIGKILL');
    await exited(first);
    const atKill = receiver.requests.length;
    // The killed worker held claims it never finished: they must come back.
    const orphaned = await wp.core.db.selectFrom('deliveries').select('id').where('status', '=', 'pending')
      .where('lease_owner', 'is not', null).execute();
    expect(orphaned.length).toBeGreaterThan(0);
    expect(written).toBeLessThan(EVENTS); // killed mid-burst

    const second = startWorkerProcess(databaseUrl);
    children.push(second);
    await burst;

    const deadline = Date.now() + 60_000;
    let unfinished = EVENTS;
    while (Date.now() < deadline) {
      const row = await wp.core.db.selectFrom('deliveries').select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '!=', 'succeeded').executeTakeFirstOrThrow();
      unfinished = Number(row.n);
      if (unfinished === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(unfinished).toBe(0);
    second.kill('SIGTERM');
    await exited(second);
    expect(second.exitCode).toBe(0); // graceful shutdown

    const all = await wp.core.db.selectFrom('deliveries').select(['id', 'status']).execute();
    expect(all).toHaveLength(EVENTS);
    const seen = new Map<string, number>();
    for (const req of receiver.requests) {
      const id = req.headers['x-waypost-delivery'] as string;
      seen.set(id, (seen.get(id) ?? 0) + 1);
      expect(verifySignature(req.raw, req.headers['x-waypost-signature'] as string, hook.secret)).toBe(true);
    }
    const missing = all.filter((d) => !seen.has(d.id));
    expect(missing).toEqual([]);
    expect(seen.size).toBe(EVENTS);
    expect(receiver.requests.length).toBeGreaterThanOrEqual(EVENTS);
    expect(atKill).toBeGreaterThanOrEqual(200);
  });
  it('keeps each record in order (ordering: record) when the worker is killed mid-burst and restarted',
    { timeout: 150_000 }, async () => {
    const databaseUrl = await freshDatabaseUrl(dialect);
    wp = await createWaypost({ env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' }, config: { databaseUrl },
      logger: createLogger('silent') });
    // Every third version's first attempt fails (retried 100 ms later): the record's later versions must wait.
    receiver = await startReceiver((req, res) => {
      const fail = versionOf(req).version % 3 === 1 && req.headers['x-waypost-attempt'] === '1';
      setTimeout(() => res.writeHead(fail ? 503 : 200).end('ok'), 15);
    });
    const hook = await addWebhook(wp.core, receiver.url, {
      events: ['booking.created', 'booking.updated'], ordering: 'record',
    });
    const env = { WAYPOST_RETRY_DELAYS_MS: '100,100,100,100' };
    const first = startWorkerProcess(databaseUrl, env);
    children.push(first);
    const RECORDS = 25;
    const TOTAL = 600; // 24 versions of each of 25 bookings
    const put = (i: number) => wp!.put('bookings', 1 + (i % RECORDS),
      booking({ total_amount: `${1 + Math.floor(i / RECORDS)}.00` }));
    await put(0);
    await receiver.waitFor(1, 60_000); // the worker is up (its first attempt fails: a 503)
    const burst = (async () => {
      for (let i = 1; i < TOTAL; i++) {
        await put(i);
        if (i % 10 === 0) await new Promise((r) => setTimeout(r, 40));
      }
    })();
    await receiver.waitFor(150, 60_000);
    first.kill('SIGKILL');
    await exited(first);
    const second = startWorkerProcess(databaseUrl, env);
    children.push(second);
    await burst;
    const deadline = Date.now() + 60_000;
    let unfinished = TOTAL;
    while (Date.now() < deadline) {
      const row = await wp.core.db.selectFrom('deliveries').select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '!=', 'succeeded').executeTakeFirstOrThrow();
      unfinished = Number(row.n);
      if (unfinished === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(unfinished).toBe(0);
    second.kill('SIGTERM');
    await exited(second);
    const all = await wp.core.db.selectFrom('deliveries').select('id').where('webhook_id', '=', hook.id).execute();
    expect(all).toHaveLength(TOTAL);
    expect(new Set(receiver.requests.map((r) => r.headers['x-waypost-delivery'])).size).toBe(TOTAL);
    expect(outOfOrder(receiver.requests)).toEqual([]); // duplicates allowed, never an older version after a newer
  });
});
