// /metrics is not public on the API's port: by default it is not served there at all (a 404 saying where it is),
// with WAYPOST_METRICS_TOKEN it answers only to that bearer token; the metrics port (WAYPOST_METRICS_PORT) of any
// role serves it, and asks for the token too when one is set.
import { afterEach, describe, expect, it } from 'vitest';
import { apiRoot, ConfigError, loadConfig } from '../../src/config.js';
import type { Waypost } from '../../src/sdk.js';
import { testWaypost } from '../helpers/waypost.js';
import { freePort } from '../helpers/services.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const isPrometheusText = (body: string) => /^process_resident_memory_bytes \d+/m.test(body)
  && /^# TYPE waypost_database_up gauge$/m.test(body);

describe('access to /metrics', () => {
  let wp: Waypost | null = null;
  afterEach(async () => { await wp?.close(); wp = null; });

  it('is not served on the API port by default, while /healthz and /readyz are', async () => {
    wp = await testWaypost();
    const app = await wp.app();
    for (const headers of [{}, bearer(TOKEN)]) {
      const res = await app.inject({ url: '/metrics', headers });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'metrics_not_public',
        detail: expect.stringContaining('WAYPOST_METRICS_PORT') });
      expect(isPrometheusText(res.body)).toBe(false);
    }
    expect((await app.inject('/healthz')).statusCode).toBe(200);
    expect((await app.inject('/readyz')).statusCode).toBe(200);
  });

  it('answers on the API port only to the bearer token when WAYPOST_METRICS_TOKEN is set', async () => {
    wp = await testWaypost({ config: { metricsToken: TOKEN } });
    const app = await wp.app();
    for (const headers of [{}, bearer('metrics-token-0123456789abcdeX'), { authorization: TOKEN }]) {
      const res = await app.inject({ url: '/metrics', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ code: 'metrics_token_required' });
      expect(isPrometheusText(res.body)).toBe(false);
    }
    const ok = await app.inject({ url: '/metrics', headers: bearer(TOKEN) });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(isPrometheusText(ok.body)).toBe(true);
  });

  it('is served on the metrics port of an API process, which serves nothing else', async () => {
    wp = await testWaypost({ config: { port: 0, host: '127.0.0.1', metricsPort: await freePort() } });
    const { url, metricsUrl } = await wp.serve('api');
    expect(metricsUrl).not.toBeNull();
    const scrape = await fetch(`${metricsUrl}/metrics`);
    expect(scrape.status).toBe(200);
    expect(isPrometheusText(await scrape.text())).toBe(true);
    expect((await fetch(`${metricsUrl}/readyz`)).status).toBe(200);
    expect((await fetch(`${metricsUrl}${apiRoot(wp.config)}/test`)).status).toBe(404);
    expect((await fetch(`${metricsUrl}/admin/api/session`)).status).toBe(404);
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
  });

  it('asks for the token on the metrics port too when one is set', async () => {
    wp = await testWaypost({ config: { port: 0, host: '127.0.0.1', metricsPort: await freePort(),
      metricsToken: TOKEN } });
    const { metricsUrl } = await wp.serve('worker');
    expect((await fetch(`${metricsUrl}/metrics`)).status).toBe(401);
    const ok = await fetch(`${metricsUrl}/metrics`, { headers: bearer(TOKEN) });
    expect(ok.status).toBe(200);
    expect(isPrometheusText(await ok.text())).toBe(true);
    expect((await fetch(`${metricsUrl}/healthz`)).status).toBe(200); // health checks need no token
  });

  it('refuses a metrics token that is short or has spaces, without echoing it', () => {
    for (const value of ['short-token', 'a token with spaces in it']) {
      let error: unknown;
      try {
        loadConfig({ WAYPOST_METRICS_TOKEN: value });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toMatch(/^WAYPOST_METRICS_TOKEN: must be at least 16 characters/);
      expect((error as ConfigError).message).not.toContain(value);
    }
    expect(loadConfig({ WAYPOST_METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
    expect(loadConfig({}).metricsToken).toBeNull();
  });
});
