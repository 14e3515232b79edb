// `waypost serve --role worker` with a metrics port: /healthz, /readyz and /metrics there (so Prometheus can scrape
// the worker) and nothing else; a bad port stops it with exit code 2 and a message naming the option or variable.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../helpers/services.js';
import { until } from '../helpers/processes.js';
import { killCli, runCli, startCli, tempSqliteUrl } from './run.js';

describe('waypost serve --role worker --metrics-port', { timeout: 120_000 }, () => {
  let worker: ChildProcess | null = null;
  afterEach(() => {
    if (worker && worker.exitCode === null) killCli(worker);
    worker = null;
  });

  it('serves health, readiness and metrics on that port, and no API', async () => {
    const DATABASE_URL = tempSqliteUrl();
    expect((await runCli(['migrate'], { DATABASE_URL })).code).toBe(0);
    const port = await freePort();
    worker = startCli(['serve', '--role', 'worker', '--metrics-port', String(port)], { DATABASE_URL });
    const base = `http://127.0.0.1:${port}`;
    await until('the worker to listen', async () => (await fetch(`${base}/healthz`).catch(() => null))?.ok === true,
      60_000);
    expect(await (await fetch(`${base}/readyz`)).json()).toMatchObject({ status: 'ready', database: 'sqlite' });
    let metrics = '';
    const claimed = async () => {
      metrics = await (await fetch(`${base}/metrics`)).text();
      return /^waypost_delivery_claims_total\{/m.test(metrics);
    };
    await until('the worker\'s first claim', claimed, 30_000);
    expect(metrics).toMatch(/^waypost_delivery_queue_depth 0$/m);
    expect(metrics).toMatch(/^waypost_delivery_claims_total\{worker="wrk_[^"]+"\} 0$/m);
    expect(metrics).toMatch(/^waypost_database_up 1$/m);
    expect((await fetch(`${base}/rest/waypost/api/v1/test`)).status).toBe(404);
    expect((await fetch(`${base}/host/v1/enquiries/1`, { method: 'PUT' })).status).toBe(404);
  });

  it('refuses a port that is not one, from the option or the environment', async () => {
    const DATABASE_URL = tempSqliteUrl();
    const [option, variable] = await Promise.all([
      runCli(['serve', '--role', 'worker', '--metrics-port', '70000'], { DATABASE_URL }),
      runCli(['serve', '--role', 'worker'], { DATABASE_URL, WAYPOST_METRICS_PORT: 'nine' }),
    ]);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/^waypost: --metrics-port: expected a port from 1 to 65535, got "70000"/);
    expect(variable.code).toBe(2);
    expect(variable.stderr).toMatch(/^waypost: invalid configuration: WAYPOST_METRICS_PORT: expected a whole number/);
  });
});
