// What an operator scrapes: two real `waypost serve --role api` processes and a `--role worker` process on one
// PostgreSQL and one Redis get traffic, then each /metrics is read with WAYPOST_METRICS_TOKEN, both ways deploy/
// offers: the first API process and the worker on their WAYPOST_METRICS_PORT, the second API process on its PORT.
// Requests are counted by route pattern and status, with durations; the cache hit of one process and the miss of the
// other, the 429 and the Redis/database gauges appear where they happened; the worker counts its claim and delivery.
// The Grafana dashboard in deploy/ queries only metrics that such a scrape contains.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/db.js';
import { freePort, hasPostgres, hasRedis, REDIS_URL } from '../helpers/services.js';
import { killAll, samples, sleep, startServe, until, type Child } from '../helpers/processes.js';
import { startReceiver, type Receiver } from '../webhooks/engine/receiver.js';
import { addWebhook, type TestWebhook } from '../webhooks/engine/fixtures.js';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { createApiKey, type CreatedApiKey } from '../../src/api/keys.js';

const HOST_TOKEN = 'metrics-host-token';
const METRICS_TOKEN = 'metrics-scrape-token-0123456789';
const scrape = (base: string) => fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
const namesOf = (text: string) => new Set([...samples(text).keys()].map((s) => s.split('{')[0]));

const services = (await hasPostgres()) && (await hasRedis());

describe.runIf(services)('metrics of two API processes (PostgreSQL and Redis)', () => {
  const children: Child[] = [];
  let wp: Waypost | null = null;
  let key: CreatedApiKey;
  let receiver: Receiver | null = null;
  let webhook: TestWebhook;
  const bases: string[] = [];
  const metricsBases: string[] = []; // where each API process is scraped
  const scrapes: string[] = [];
  let workerScrape = '';
  afterAll(async () => {
    await killAll(children);
    await wp?.close();
    await receiver?.close();
  });

  beforeAll(async () => {
    const databaseUrl = await freshDatabaseUrl('postgres');
    // Migrated, with a key, before the processes start (they would race to migrate).
    wp = await createWaypost({ config: { databaseUrl }, logger: createLogger('silent') });
    key = await createApiKey(wp.core, { label: 'metrics', permissions: ['trips.list', 'trips.read'] });
    receiver = await startReceiver();
    webhook = await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
    const namespace = `m${randomBytes(4).toString('hex')}`;
    const env = {
      DATABASE_URL: databaseUrl, REDIS_URL, WAYPOST_NAMESPACE: namespace, WAYPOST_HOST_TOKEN: HOST_TOKEN,
      WAYPOST_METRICS_TOKEN: METRICS_TOKEN,
      // An hour's window: the seven requests below could cross a minute's end and start counting again.
      WAYPOST_RATE_LIMIT: '6', WAYPOST_RATE_LIMIT_WINDOW_S: '3600', WAYPOST_ALLOW_PRIVATE_TARGETS: 'true',
    };
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const metricsPort = i === 0 ? await freePort() : null;
      children.push(startServe(`api-${i}`, 'api', { ...env, PORT: String(port),
        WAYPOST_METRICS_PORT: metricsPort === null ? undefined : String(metricsPort) }));
      const base = `http://127.0.0.1:${port}`;
      bases.push(base);
      metricsBases.push(metricsPort === null ? base : `http://127.0.0.1:${metricsPort}`);
      // One after the other: two first starts at once race to store the console's setup link.
      const deadline = Date.now() + 60_000;
      while ((await fetch(`${base}/readyz`).then((r) => r.json() as Promise<{ redis?: string }>, () => null))
        ?.redis !== 'up') {
        if (Date.now() > deadline) throw new Error(`API process ${i} did not become ready`);
        await sleep(200);
      }
    }

    const api = (i: number, path: string) => fetch(`${bases[i]}/rest/${namespace}/api/v1${path}`,
      { headers: { 'access-token': key.key, 'access-secret': key.secret } });
    const put = await fetch(`${bases[0]}/host/v1/trips/17`, {
      method: 'PUT', headers: { authorization: `Bearer ${HOST_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Douro Valley Wine Trail' }),
    });
    expect(put.status).toBe(201);
    expect((await api(0, '/trips/17')).headers.get('x-cache')).toBe('MISS');
    await sleep(100); // the store is not on the answer's path
    expect((await api(1, '/trips/17')).headers.get('x-cache')).toBe('HIT');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await api(i % 2, '/test')).status); // 7 requests of a limit of 6
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    expect((await fetch(`${bases[1]}/no/such/path/42`)).status).toBe(404);
    for (const base of metricsBases) scrapes.push(await (await scrape(base)).text());

    // A worker started after a write delivers its event (found by its first claim) and is scraped on its own port.
    await wp.put('enquiries', 1, { full_name: 'Ana Silva', email: 'ana@example.com' });
    const port = await freePort();
    children.push(startServe('worker', 'worker', { ...env, WAYPOST_METRICS_PORT: String(port) }));
    await receiver.waitFor(1, 60_000);
    const worker = `http://127.0.0.1:${port}`;
    const recorded = async () => {
      workerScrape = await scrape(worker).then((r) => r.text(), () => '');
      return workerScrape.includes('waypost_deliveries_total{outcome="succeeded"');
    };
    await until('the worker to count its delivery', recorded, 30_000);
    // The queue is empty once the success is written (read by the scrape, in any process).
    await until('the queue to be empty', async () => samples(await (await scrape(metricsBases[0])).text())
      .get('waypost_delivery_queue_depth') === 0, 10_000);
  }, 180_000);

  it('counts requests by route pattern and status in the process that answered them', () => {
    const [a, b] = scrapes.map(samples);
    const byRoute = (m: Map<string, number>, route: string, status: number) =>
      [...m].filter(([k]) => k.startsWith('waypost_http_requests_total{') && k.includes(`status="${status}"`)
        && k.includes(route)).reduce((n, [, v]) => n + v, 0);
    expect(scrapes.join('\n')).not.toContain('/trips/17"'); // never the raw URL
    expect([...a.keys()].filter((k) => k.startsWith('waypost_http_requests_total{'))).toContainEqual(
      expect.stringContaining('/trips/:id'));
    expect(byRoute(a, '/trips/:id', 200)).toBe(1);
    expect(byRoute(b, '/trips/:id', 200)).toBe(1);
    expect(byRoute(a, '/host/v1/', 201)).toBe(1);
    expect(byRoute(b, 'route="unmatched"', 404)).toBe(1);
    expect(byRoute(a, '/test"', 429) + byRoute(b, '/test"', 429)).toBe(1);
    const count = (m: Map<string, number>) => [...m]
      .filter(([k]) => k.startsWith('waypost_http_request_duration_seconds_count{') && k.includes('/trips/:id'))
      .reduce((n, [, v]) => n + v, 0);
    expect(count(a)).toBe(1);
  });

  it('counts the miss where it happened and the hit in the other process, and the rate-limit refusal', () => {
    const [a, b] = scrapes.map(samples);
    expect(a.get('waypost_api_cache_misses_total{resource="trips"}')).toBe(1);
    expect(a.get('waypost_api_cache_hits_total{resource="trips"}')).toBeUndefined();
    expect(b.get('waypost_api_cache_hits_total{resource="trips"}')).toBe(1);
    expect(b.get('waypost_api_cache_misses_total{resource="trips"}')).toBeUndefined();
    const refused = (m: Map<string, number>) => m.get('waypost_api_rate_limited_total{policy="default"}') ?? 0;
    expect(refused(a) + refused(b)).toBe(1);
  });

  it('reports Redis and the database available, and the process resources', () => {
    for (const m of scrapes.map(samples)) {
      expect(m.get('waypost_redis_up')).toBe(1);
      expect(m.get('waypost_database_up')).toBe(1);
      expect(m.get('process_resident_memory_bytes')).toBeGreaterThan(0);
    }
  });

  it('serves the worker\'s health and delivery metrics on its metrics port', async () => {
    const m = samples(workerScrape);
    expect(m.get(`waypost_deliveries_total{outcome="succeeded",webhook="${webhook.id}"}`)).toBe(1);
    expect(m.get('waypost_delivery_attempt_duration_seconds_count')).toBe(1);
    const claims = [...m].filter(([k]) => k.startsWith('waypost_delivery_claims_total{worker="wrk_'));
    expect(claims.reduce((n, [, v]) => n + v, 0)).toBe(1);
    expect([...m].filter(([k]) => k.startsWith('waypost_delivery_lease_expiries_total{worker="wrk_'))).toEqual(
      [[expect.any(String), 0]]); // nothing was taken over from a crashed worker
    expect(m.get('waypost_database_up')).toBe(1);
    expect(m.get('process_resident_memory_bytes')).toBeGreaterThan(0);
    // The API processes have no deliveries of their own to count, but the queue's figures.
    const api = samples(scrapes[0]);
    expect(api.get('waypost_delivery_queue_depth')).toBeGreaterThanOrEqual(0);
    expect(api.has('waypost_delivery_oldest_due_age_seconds')).toBe(true);
  });

  it('refuses a scrape of an API process\'s PORT without the metrics token', async () => {
    expect((await fetch(`${bases[1]}/metrics`)).status).toBe(401);
  });

  it('has a Grafana dashboard that queries only metrics these processes expose', () => {
    const dashboard = JSON.parse(readFileSync('deploy/grafana-dashboard.json', 'utf8')) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
    };
    const exposed = new Set([...scrapes, workerScrape].flatMap((s) => [...namesOf(s)]));
    const queried = dashboard.panels.flatMap((p) => p.targets.flatMap((t) =>
      (t.expr.match(/\b(?:waypost|process|nodejs)_[a-z0-9_]+/g) ?? []).map((name) => ({ panel: p.title, name }))));
    expect(queried.length).toBeGreaterThan(10);
    expect(queried.filter((q) => !exposed.has(q.name))).toEqual([]);
    // Every panel queries something.
    expect(dashboard.panels.filter((p) => p.targets.length === 0)).toEqual([]);
  });
});
