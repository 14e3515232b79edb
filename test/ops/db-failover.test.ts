// Database failover: real `waypost serve` processes (api, all, two workers) on PostgreSQL have their backends
// terminated (pg_terminate_backend, as a failover or a restart does) several times under load. No process may exit;
// a host write caught by a drop is retried on a fresh connection, so every one answers 2xx (PUTs, DELETEs and batches:
// what WordPress sends); a read caught by one answers 503 (never 500); later requests succeed, and every event is
// still delivered.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/db.js';
import { freePort, hasPostgres } from '../helpers/services.js';
import {
  killAll, loggedErrors, processReport, sleep, startReport, startServe, until, type Child,
} from '../helpers/processes.js';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { createApiKey, PERMISSIONS } from '../../src/api/keys.js';
import { rotateHostToken } from '../../src/host/token.js';
import { startReceiver, type Receiver } from '../webhooks/engine/receiver.js';
import { addWebhook } from '../webhooks/engine/fixtures.js';

let hostToken = ''; // stored in the database, as `waypost serve` makes it: every host request reads it there
const LOAD_MS = 6_000;
const KILLS_AT_MS = [1_000, 2_500, 4_000];

function startProcess(name: string, role: 'api' | 'all' | 'worker', databaseUrl: string, port: number): Child {
  return startServe(name, role, {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    WAYPOST_HOST_TOKEN: undefined,
    WAYPOST_ALLOW_PRIVATE_TARGETS: 'true',
    WAYPOST_RATE_LIMIT: '1000000', // the load must not meet the per-key limit
    // Short enough that a delivery whose success could not be recorded is sent again within the test.
    WAYPOST_LEASE_MS: '2000',
    WAYPOST_POLL_MS: '200',
    REDIS_URL: undefined, // each process keeps its own cache: nothing here depends on Redis
    LOG_LEVEL: 'warn', // a request answered 503 logs its error at warn: the failure message shows them
  });
}

const hasPg = await hasPostgres();

describe.runIf(hasPg)('database connection drops (PostgreSQL)', () => {
  const children: Child[] = [];
  let wp: Waypost | null = null;
  let receiver: Receiver | null = null;
  let admin: pg.Client | null = null;
  afterAll(async () => {
    await killAll(children);
    await admin?.end().catch(() => {});
    await wp?.close();
    await receiver?.close();
  });

  it('keeps every process alive, answers every host write 2xx and reads 503 (never 500), loses no delivery',
    { timeout: 120_000 }, async () => {
    const baseUrl = await freshDatabaseUrl('postgres');
    // Only the spawned processes carry this name, so only their backends are terminated (not this test's).
    const appName = `wpfail_${randomBytes(4).toString('hex')}`;
    const childUrl = new URL(baseUrl);
    childUrl.searchParams.set('application_name', appName);

    // Migrated, with a webhook and an API key, before the processes start (they would race to migrate).
    wp = await createWaypost({
      env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' }, config: { databaseUrl: baseUrl }, logger: createLogger('silent'),
    });
    receiver = await startReceiver();
    await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
    const key = await createApiKey(wp.core, { label: 'failover', permissions: PERMISSIONS });
    hostToken = await rotateHostToken(wp.core);
    admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();

    const ports = [await freePort(), await freePort()];
    const bases = ports.map((p) => `http://127.0.0.1:${p}`);
    children.push(
      startProcess('api', 'api', childUrl.toString(), ports[0]),
      startProcess('worker-1', 'worker', childUrl.toString(), 0),
      startProcess('worker-2', 'worker', childUrl.toString(), 0),
    );
    const ready = (base: string) => async () => (await fetch(`${base}/readyz`).then((r) => r.status, () => 0)) === 200;
    // The HTTP processes start one after the other: two first starts at once race to store the console's setup
    // link (a unique-key error that ends one of them), which is not what this test is about.
    // A tsx process starts in a few seconds, far slower on a busy machine.
    await until('the api process to be ready', ready(bases[0]), 45_000, () => startReport(children));
    children.push(startProcess('all', 'all', childUrl.toString(), ports[1]));
    await until('the all process to be ready', ready(bases[1]), 45_000, () => startReport(children));
    // Every worker (two workers and the `all` process) holds its LISTEN connection.
    const listening = async () => {
      const { rows } = await admin!.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'`, [appName]);
      return Number(rows[0].n) >= 3;
    };
    await until('the workers to LISTEN', listening, 30_000, () => startReport(children));

    let nextId = 1;
    const put = async (base: string) => {
      const id = nextId++;
      const res = await fetch(`${base}/host/v1/enquiries/${id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${hostToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ full_name: `Guest ${id}`, email: `guest${id}@example.com` }),
      });
      return { res, id, body: await res.text(), statuses: undefined };
    };
    // A batch puts a new enquiry and deletes it: each operation must answer as if no connection had dropped.
    const batch = async (base: string) => {
      const id = nextId++;
      const res = await fetch(`${base}/host/v1/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hostToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ operations: [
          { op: 'put', resource: 'enquiries', id, data: { full_name: `Guest ${id}`, email: `guest${id}@example.com` } },
          { op: 'delete', resource: 'enquiries', id },
        ] }),
      });
      const body = await res.text();
      const results = res.ok ? (JSON.parse(body) as { results: Array<{ status: number }> }).results : [];
      return { res, id, body, statuses: results.map((r) => r.status) };
    };
    const get = async (base: string) => {
      // A search misses the cache, so every GET reaches the database.
      const search = randomBytes(4).toString('hex');
      const res = await fetch(`${base}/rest/waypost/api/v1/trips?search=${search}`, {
        headers: { 'access-token': key.key, 'access-secret': key.secret },
      });
      return { res, body: await res.text() };
    };

    type Kind = 'put' | 'get' | 'batch';
    interface Outcome {
      kind: Kind; status: number; retryAfter?: string | null; code?: string; at: number; items?: number[];
    }
    const outcomes: Outcome[] = [];
    const committed: number[] = []; // enquiry ids whose PUT answered 2xx: each must have made its event
    const started = Date.now();
    const request = async (kind: Kind, base: string): Promise<Outcome> => {
      const at = Date.now() - started;
      try {
        const { res, body, id, statuses } = kind === 'put' ? await put(base)
          : kind === 'batch' ? await batch(base) : { ...(await get(base)), id: 0, statuses: undefined };
        if (kind !== 'get' && res.ok) committed.push(id);
        const code = res.status === 503 ? (JSON.parse(body) as { code?: string }).code : undefined;
        return { kind, status: res.status, retryAfter: res.headers.get('retry-after'), code, at, items: statuses };
      } catch {
        return { kind, status: 0, at }; // no answer: the process is gone
      }
    };

    let killsDone = false;
    const load = Array.from({ length: 8 }, async (_, n) => {
      for (let i = 0; Date.now() - started < LOAD_MS || !killsDone; i++) {
        const kind = (['put', 'get', 'batch', 'get'] as const)[i % 4];
        outcomes.push(await request(kind, bases[(n + i) % 2]));
      }
    });
    const killed: number[] = [];
    const connected = async () => Number((await admin!.query<{ n: string }>(
      'SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1', [appName])).rows[0].n);
    const kills = (async () => {
      for (const at of KILLS_AT_MS) {
        await sleep(at - (Date.now() - started));
        // On a busy CI machine the processes had not reconnected 1.5 s after a drop (a round found 0 backends and cut
        // nothing): each round waits, up to 15 s, for connections to cut and two more answers since the last.
        const since = outcomes.length;
        await until('the processes to reconnect and answer again',
          async () => outcomes.length >= since + 2 && (await connected()) > 0, 15_000).catch(() => undefined);
        const { rows } = await admin!.query<{ pg_terminate_backend: boolean }>(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [appName]);
        killed.push(rows.filter((r) => r.pg_terminate_backend).length);
      }
      killsDone = true;
    })();
    await Promise.all([...load, kills]);

    // The first kill found this test's processes connected, so it really dropped their connections.
    expect(killed).toHaveLength(KILLS_AT_MS.length);
    expect(killed[0]).toBeGreaterThan(0);
    // Soft from here on: a broken build shows every way it fails, not only the first.
    expect.soft(processReport(children)).not.toContain('exited');
    for (const n of killed.slice(1)) expect.soft(n, 'processes connected at the later kills').toBeGreaterThan(0);

    // The workers LISTEN again by themselves (reconnected after the drops).
    expect.soft(await until('the workers to LISTEN again', listening, 10_000).then(() => true, () => false),
      'LISTEN again')
      .toBe(true);

    // Requests after the drops succeed on fresh connections, on every API process.
    await sleep(500);
    const after: Outcome[] = [];
    for (const base of bases) {
      for (let i = 0; i < 3; i++) after.push(await request('put', base), await request('get', base));
    }
    const expected = after.map((o) => `${o.kind} ${o.kind === 'put' ? 201 : 200}`);
    expect.soft(after.map((o) => `${o.kind} ${o.status}`), loggedErrors(children)).toEqual(expected);

    // During the drops: every host write answers 2xx (a batch's put 201 and delete 204: one drop is invisible to
    // WordPress); a read answers 2xx or 503 database_unavailable with Retry-After, never a 500 or no answer.
    const unexpected: Record<string, number> = {}; // e.g. { 'put 503': 3, 'get 500': 1, 'put 0': 40 }
    const ok = (o: Outcome) => o.status >= 200 && o.status < 300 && (o.kind !== 'batch' || `${o.items}` === '201,204');
    for (const o of outcomes.filter((x) => !ok(x) && !(x.kind === 'get' && x.status === 503))) {
      const what = `${o.kind} ${o.status}${o.kind === 'batch' && o.status === 200 ? ` [${o.items}]` : ''}`;
      unexpected[what] = (unexpected[what] ?? 0) + 1;
    }
    const unavailableLogs = children.flatMap((c) => c.output.join('').split('\n')
      .filter((l) => l.includes('database unavailable')).map((l) => `${c.name}: ${l.slice(0, 800)}`));
    expect.soft(unexpected, `${loggedErrors(children)}\n${unavailableLogs.join('\n')}`).toEqual({});
    expect(outcomes.filter((o) => o.kind !== 'get').length).toBeGreaterThan(8); // the load really wrote
    const unavailable = outcomes.filter((o) => o.status === 503);
    console.log(`db-failover: ${outcomes.length - outcomes.filter((o) => o.kind === 'get').length} host writes, `
      + `${outcomes.filter((o) => o.kind === 'get').length} reads (${unavailable.length} answered 503), `
      + `backends terminated: ${killed.join(', ')}`);
    expect.soft(unavailable.filter((o) => o.retryAfter !== '1' || o.code !== 'database_unavailable')).toEqual([]);

    // Every event, including those written between the drops, reaches the receiver at least once.
    const deliveries = async () => wp!.core.db.selectFrom('deliveries').select(['id', 'event_id']).execute();
    const seen = () => new Set(receiver!.requests.map((r) => r.headers['x-waypost-delivery'] as string));
    await until('every delivery to reach the receiver', async () => {
      const got = seen();
      return (await deliveries()).every((d) => got.has(d.id));
    }, 20_000).catch(() => {}); // the assertions below say what is missing
    const events = await wp.core.db.selectFrom('events').select('record_id')
      .where('type', '=', 'enquiry.created').execute();
    // Every acknowledged write made its event (a write answered 503 may have committed too: its event counts).
    const withEvent = new Set(events.map((e) => e.record_id));
    expect.soft(committed.filter((id) => !withEvent.has(id))).toEqual([]);
    const all = await deliveries();
    expect.soft(all.length).toBe(events.length);
    expect.soft(all.filter((d) => !seen().has(d.id))).toEqual([]);
    expect.soft(seen().size).toBe(events.length);
    expect(processReport(children)).not.toContain('exited');
  });
});
