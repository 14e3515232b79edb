import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { createApiKey, PERMISSIONS } from '../../src/api/keys.js';

/** A pino destination that keeps every line, so a test can read exactly what would reach the log. */
function logSink() {
  const lines: string[] = [];
  const stream = new Writable({ write(chunk, _enc, cb) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    cb();
  } });
  const entries = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { stream, text: () => lines.join('\n'), entries };
}

describe.each(DIALECTS)('health and readiness on %s', (dialect) => {
  let wp: Waypost;
  beforeEach(async () => { wp = await testWaypost({ dialect }); });
  afterEach(async () => wp.close());

  it('GET /healthz answers ok with the version', async () => {
    const res = await (await wp.app()).inject('/healthz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', version: wp.config.version });
  });

  it('GET /readyz answers ready when the database answers', async () => {
    const res = await (await wp.app()).inject('/readyz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready', database: dialect });
  });
});

describe('readiness without a database', () => {
  it('GET /readyz answers 503 problem+json while /healthz still answers (the process is alive)', async () => {
    // Port 1 on loopback refuses connections: a database that is down.
    const wp = await createWaypost({ env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test',
      WAYPOST_HOST_TOKEN: 'test-host-token' }, migrate: false, logger: createLogger('silent') });
    try {
      const app = await wp.app();
      const res = await app.inject('/readyz');
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json())
        .toMatchObject({ status: 503, code: 'not_ready', detail: expect.stringContaining('database unreachable') });
      expect((await app.inject('/healthz')).statusCode).toBe(200);
    } finally {
      await wp.close();
    }
  });
});

describe('metrics', () => {
  it('GET /metrics serves Prometheus text (with the metrics token on the API port)', async () => {
    const wp = await testWaypost({ config: { metricsToken: 'metrics-token-0123456789' } });
    try {
      const res = await (await wp.app()).inject({ url: '/metrics',
        headers: { authorization: 'Bearer metrics-token-0123456789' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(res.body).toMatch(/^# HELP process_cpu_user_seconds_total /m);
      expect(res.body).toMatch(/^# TYPE nodejs_heap_size_used_bytes gauge$/m);
      expect(res.body).toMatch(/^process_resident_memory_bytes \d+/m);
    } finally {
      await wp.close();
    }
  });
});

describe('logs never contain credentials', () => {
  it('redacts API keys and secrets sent in the query string or headers, and the host token', async () => {
    const sink = logSink();
    const wp = await testWaypost({ logger: createLogger('trace', sink.stream),
      config: { port: 0, host: '127.0.0.1' } });
    try {
      const { url } = await wp.serve('api');
      const key = await createApiKey(wp.core, { label: 'log test', permissions: PERMISSIONS });
      const api = `${url}/rest/waypost/api/v1`;
      const withQuery = await fetch(`${api}/bookings?perpage=2&accesstoken=${key.key}&accesssecret=${key.secret}`);
      expect(withQuery.status).toBe(200);
      const wrongSecret = await fetch(`${api}/test?accesstoken=${key.key}&accesssecret=wps_wrong-secret-value`);
      expect(wrongSecret.status).toBe(401);
      const withHeaders = await fetch(`${api}/trips`,
        { headers: { 'access-token': key.key, 'access-secret': key.secret } });
      expect(withHeaders.status).toBe(200);
      const hostWrite = await fetch(`${url}/host/v1/trips/1`,
        { method: 'PUT', headers: { ...HOST_AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Douro Valley Wine Trail' }) });
      expect(hostWrite.status).toBe(201);
      await wp.close();

      const text = sink.text();
      // The requests were logged (so the checks below look at real log lines)…
      const requests = sink.entries().filter((e) => e.msg === 'request');
      expect(requests.map((e) => e.url)).toEqual(expect.arrayContaining([
        '/rest/waypost/api/v1/bookings?perpage=2&accesstoken=[REDACTED]&accesssecret=[REDACTED]',
        '/rest/waypost/api/v1/test?accesstoken=[REDACTED]&accesssecret=[REDACTED]',
        '/rest/waypost/api/v1/trips',
        '/host/v1/trips/1',
      ]));
      // …and no line anywhere holds a credential.
      expect(text).not.toContain(key.secret);
      expect(text).not.toContain(key.key);
      expect(text).not.toContain('wps_wrong-secret-value');
      expect(text).not.toContain('test-host-token');
    } finally {
      await wp.close().catch(() => {});
    }
  });
});
