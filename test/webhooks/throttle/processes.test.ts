// The throttle holds across processes: two `waypost serve --role worker` processes on one database (PostgreSQL,
// and SQLite with the test's own process writing to the same file) send a webhook limited to 10/s a burst of 30
// deliveries, 10 ± 2 each second, both of them sending.
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabaseUrl } from '../../helpers/db.js';
import { createWaypost, type Waypost } from '../../../src/sdk.js';
import { createLogger } from '../../../src/log.js';
import { startReceiver, type Receiver } from '../engine/receiver.js';
import { addWebhook } from '../engine/fixtures.js';
import { perSecond } from './arrivals.js';
import { sentBy, startWorkerProcess, type WorkerProcess } from './processes.js';

// Small claims, so that both workers hold some of the burst and reserve slots against each other.
const TUNING = {
  WAYPOST_DELIVERY_CONCURRENCY: '4', WAYPOST_WEBHOOK_CONCURRENCY: '2', WAYPOST_PREFETCH_ROUNDS: '1',
  WAYPOST_POLL_MS: '100',
};

describe.each(DIALECTS)('throttle across worker processes on %s', (dialect) => {
  let wp: Waypost | null = null;
  let receiver: Receiver | null = null;
  const workers: WorkerProcess[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop();
    await wp?.close();
    await receiver?.close();
  });

  it('two worker processes send a 10/s webhook 10 ± 2 a second between them', { timeout: 90_000 }, async () => {
    const databaseUrl = await freshDatabaseUrl(dialect);
    wp = await createWaypost({
      env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' }, config: { databaseUrl }, logger: createLogger('silent'),
    });
    receiver = await startReceiver();
    await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'], maxPerSecond: 10 });
    for (const name of ['WorkerA', 'WorkerB']) workers.push(startWorkerProcess(name, databaseUrl, { env: TUNING }));
    await Promise.all(workers.map((w) => w.ready));
    for (let i = 1; i <= 30; i++) {
      await wp.put('enquiries', i, { full_name: `Guest ${i}`, email: `guest${i}@example.com` });
    }
    const requests = await receiver.waitFor(30, 30_000);
    const counts = perSecond(requests.map((r) => r.at));
    expect(counts.length).toBeGreaterThanOrEqual(3);
    for (const n of counts.slice(0, 3)) expect(Math.abs(n - 10)).toBeLessThanOrEqual(2);
    const senders = new Set(requests.map((r) => sentBy(r, ['WorkerA', 'WorkerB'])));
    expect(senders).toEqual(new Set(['WorkerA', 'WorkerB']));
  });
});
