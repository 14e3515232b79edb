// A Prometheus of the test's own (Debian's `prometheus`, never its packaged service): a temporary config, storage
// directory and free port, 1 s scrape and rule evaluation intervals, and the HTTP API calls the suites make.
// Also: promtool, and the Grafana dashboard's queries with its variables filled in.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CI, freePort } from './services.js';
import { exited, sleep } from './processes.js';

export const PROMETHEUS = '/usr/bin/prometheus';
export const PROMTOOL = '/usr/bin/promtool';

/** Whether Debian's prometheus and promtool are installed (skips locally with a message; required under CI=true). */
export function hasPrometheus(suite: string): boolean {
  if (existsSync(PROMETHEUS) && existsSync(PROMTOOL)) return true;
  if (CI) throw new Error(`${PROMETHEUS} and ${PROMTOOL} are required when CI=true (Debian package prometheus)`);
  console.warn(`\n⚠ SKIPPING ${suite}: no ${PROMETHEUS} / ${PROMTOOL} (apt-get install prometheus)\n`);
  return false;
}

/** `promtool <args>`: its exit status and everything it printed. */
export function promtool(...args: string[]): { status: number | null; output: string } {
  const r = spawnSync(PROMTOOL, args, { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** A sample stream of a range query: labels and [unix seconds, value as text] pairs. */
export interface Series { metric: Record<string, string>; values: Array<[number, string]> }
export interface Rule { name: string; type: string; health: string; lastError?: string; lastEvaluation: string }
export interface Alert { labels: Record<string, string>; state: 'pending' | 'firing'; value: string }

export interface Prometheus {
  url: string;
  /** Instant query now: the result vector. */
  query(expr: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  /** Range query (unix seconds) at a 1 s step. */
  queryRange(expr: string, start: number, end: number): Promise<Series[]>;
  rules(): Promise<Rule[]>;
  alerts(): Promise<Alert[]>;
  /** Scrape targets' health ('up', 'down', 'unknown') by scrape URL. */
  targets(): Promise<Map<string, string>>;
  output: string[];
  stop(): Promise<void>;
}

/**
 * Prometheus scraping `targets` (host:port) every second as job `waypost`, with the bearer token read from a file as
 * docs/operations.md shows, and the rule files given (evaluated every second).
 */
export async function startPrometheus(opts: { targets: string[]; token: string; ruleFiles: string[] })
  : Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'waypost-prometheus-'));
  writeFileSync(join(dir, 'token'), opts.token);
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: opts.ruleFiles,
    scrape_configs: [{
      job_name: 'waypost',
      authorization: { credentials_file: join(dir, 'token') },
      static_configs: [{ targets: opts.targets }],
    }],
  };
  writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify(config)); // JSON is YAML
  const checked = promtool('check', 'config', join(dir, 'prometheus.yml'));
  if (checked.status !== 0) throw new Error(`promtool check config failed:\n${checked.output}`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc: ChildProcess = spawn(PROMETHEUS, [
    `--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  proc.stdout!.on('data', (c: Buffer) => { output.push(String(c)); });
  proc.stderr!.on('data', (c: Buffer) => { output.push(String(c)); });

  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${url}/api/v1/${path}`);
    const body = await res.json() as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${path}: ${res.status} ${body.error}`);
    return body.data;
  };
  const q = encodeURIComponent;
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      await Promise.race([exited(proc), sleep(5_000)]);
      proc.kill('SIGKILL');
      await exited(proc);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  while (!(await fetch(`${url}/-/ready`).then((r) => r.ok, () => false))) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus did not start:\n${output.join('').slice(-2000)}`);
    }
    await sleep(100);
  }
  return {
    url,
    output,
    stop,
    query: async (expr) => (await api<{ result: [] }>(`query?query=${q(expr)}`)).result,
    queryRange: async (expr, start, end) =>
      (await api<{ result: Series[] }>(`query_range?query=${q(expr)}&start=${start}&end=${end}&step=1`)).result,
    rules: async () => (await api<{ groups: Array<{ rules: Rule[] }> }>('rules')).groups.flatMap((g) => g.rules),
    alerts: async () => (await api<{ alerts: Alert[] }>('alerts')).alerts,
    targets: async () => new Map((await api<{ activeTargets: Array<{ scrapeUrl: string; health: string }> }>(
      'targets')).activeTargets.map((t) => [t.scrapeUrl, t.health])),
  };
}

/** Each `for:` of a rules file set to `duration`, so an alert fires within a test (the file's own stay as written). */
export function withShortFor(rulesFile: string, duration: string, to: string): void {
  const text = readFileSync(rulesFile, 'utf8');
  writeFileSync(to, text.replace(/^(\s+for:\s*)\S+[ \t]*$/gm, `$1${duration}`));
}

export interface PanelQuery { panel: string; refId: string; expr: string }

/**
 * Every target's expression of a Grafana dashboard, with Grafana's interval variables as Grafana would fill them in
 * for a 1 s step and scrape interval ($__rate_interval = max($__interval + scrape interval, 4 × scrape interval)).
 * A variable left over (a template variable this does not know) is kept, so its query fails visibly.
 */
export function dashboardQueries(file: string, scrapeIntervalS = 1): PanelQuery[] {
  const dashboard = JSON.parse(readFileSync(file, 'utf8')) as {
    panels: Array<{ title: string; targets?: Array<{ expr: string; refId?: string }> }>;
  };
  const vars: Record<string, string> = {
    __rate_interval: `${Math.max(1 + scrapeIntervalS, 4 * scrapeIntervalS)}s`,
    __interval: '1s', __range: '60s', __interval_ms: '1000', __range_s: '60',
  };
  return dashboard.panels.flatMap((p) => (p.targets ?? []).map((t, i) => ({
    panel: p.title,
    refId: t.refId ?? String.fromCharCode(65 + i),
    expr: t.expr.replace(/\$\{?(\w+)\}?/g, (all, name: string) => vars[name] ?? all),
  })));
}
