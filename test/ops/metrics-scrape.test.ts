// What an operator scrapes: two real `waypost serve --role api` processes on one PostgreSQL and one Redis get
// traffic, then each /metrics is read. Requests are counted by route pattern and status, with durations; the cache
// hit of one process and the miss of the other, the 429 and the Redis/database gauges appear where they happened.
// The Grafana dashboard in deploy/ queries only metrics that such a scrape contains.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/db.js';
import { freePort, hasPostgres, hasRedis, REDIS_URL } from '../helpers/services.js';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { createApiKey, type CreatedApiKey } from '../../src/api/keys.js';

const HOST_TOKEN = 'metrics-host-token';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sample values by series, e.g. `waypost_api_cache_hits_total{resource="trips"}` → 1. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}
const namesOf = (text: string) => new Set([...samples(text).keys()].map((s) => s.split('{')[0]));

const services = (await hasPostgres()) && (await hasRedis());

describe.runIf(services)('metrics of two API processes (PostgreSQL and Redis)', () => {
  const children: ChildProcess[] = [];
  let wp: Waypost | null = null;
  let key: CreatedApiKey;
  const bases: string[] = [];
  const scrapes: string[] = [];
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await wp?.close();
  });

  beforeAll(async () => {
    const databaseUrl = await freshDatabaseUrl('postgres');
    // Migrated, with a key, before the processes start (they would race to migrate).
    wp = await createWaypost({ config: { databaseUrl }, logger: createLogger('silent') });
    key = await createApiKey(wp.core, { label: 'metrics', permissions: ['trips.list', 'trips.read'] });
    const namespace = `m${randomBytes(4).toString('hex')}`;
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--role', 'api'], {
        env: {
          ...process.env, DATABASE_URL: databaseUrl, REDIS_URL, WAYPOST_NAMESPACE: namespace, PORT: String(port),
          HOST: '127.0.0.1', WAYPOST_HOST_TOKEN: HOST_TOKEN, WAYPOST_RATE_LIMIT: '6', LOG_LEVEL: 'error',
        },
        stdio: 'ignore',
      });
      children.push(proc);
      const base = `http://127.0.0.1:${port}`;
      bases.push(base);
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
    for (const base of bases) scrapes.push(await (await fetch(`${base}/metrics`)).text());
  }, 150_000);

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

  it('has a Grafana dashboard that queries only metrics these processes expose', () => {
    const dashboard = JSON.parse(readFileSync('deploy/grafana-dashboard.json', 'utf8')) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
    };
    const exposed = new Set(scrapes.flatMap((s) => [...namesOf(s)]));
    const queried = dashboard.panels.flatMap((p) => p.targets.flatMap((t) =>
      (t.expr.match(/\b(?:waypost|process|nodejs)_[a-z0-9_]+/g) ?? []).map((name) => ({ panel: p.title, name }))));
    expect(queried.length).toBeGreaterThan(10);
    expect(queried.filter((q) => !exposed.has(q.name))).toEqual([]);
    // Every panel queries something.
    expect(dashboard.panels.filter((p) => p.targets.length === 0)).toEqual([]);
  });
});
