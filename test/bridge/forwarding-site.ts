// The world of test/bridge/forwarding*.test.ts: a real WordPress (Debian's, on MariaDB, served by `php -S`) with the
// WP Travel Engine 6.8.0 fixture and the checkout replay plugin (checkout-plugin.php), a real Waypost (HTTP server +
// delivery worker) behind a WaypostFront, a real webhook receiver; and what the suites do with them.
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { testWaypost } from '../helpers/waypost.js';
import { startReceiver, type Receiver } from '../webhooks/engine/receiver.js';
import { addWebhook } from '../webhooks/engine/fixtures.js';
import type { Waypost } from '../../src/sdk.js';
import { WaypostFront } from './waypost-front.js';
import { BRIDGE_DIR, checkoutReplay, startWordPress, type WordPress } from './wordpress.js';

export const TOKEN = 'test-host-token';
/** The bridge's per-request timeout for Waypost (Waypost_Bridge_Forwarder::TIMEOUT). */
export const TIMEOUT_MS = 2000;
/** Slack for a loaded CI machine on top of the timeout (PHP, MariaDB and Node share it). */
export const MARGIN_MS = 1000;
/** Source booking in the fixture: Anna Schmidt #28, 2 adults on trip 25, paid in full (payment 30). */
const FROM = 28;

export interface ForwardingSite { waypost: Waypost; receiver: Receiver; front: WaypostFront; site: WordPress }

export async function startForwardingSite(): Promise<ForwardingSite> {
  const receiver = await startReceiver();
  const waypost = await testWaypost({ config: { port: 0, host: '127.0.0.1', allowPrivateTargets: true, pollMs: 50,
    retryDelaysMs: [50, 50, 50, 50] } });
  await addWebhook(waypost.core, receiver.url);
  const { url } = await waypost.serve('all');
  const front = new WaypostFront(url!);
  await front.up();
  const site = await startWordPress({
    fixture: 'wpte-6.8.0',
    plugins: [BRIDGE_DIR],
    // WP-Cron is run by the test (the hook, through php()), never by a page view in the middle of a test.
    constants: { WAYPOST_URL: front.url, WAYPOST_HOST_TOKEN: TOKEN, DISABLE_WP_CRON: true },
  });
  await mkdir(path.join(site.dir, 'wp-content/mu-plugins'), { recursive: true });
  const plugin = readFileSync(new URL('./checkout-plugin.php', import.meta.url), 'utf8') +
    checkoutReplay();
  await writeFile(path.join(site.dir, 'wp-content/mu-plugins/waypost-test-checkout.php'), plugin);
  return { waypost, receiver, front, site };
}

export async function stopForwardingSite(s: Partial<ForwardingSite>) {
  await s.site?.close();
  await s.front?.down();
  await s.waypost?.close();
  await s.receiver?.close();
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One checkout over HTTP; resolves when the response has fully arrived (php -S closes after shutdown). */
export async function checkout(site: WordPress, email: string, options: { off?: boolean } = {}) {
  const started = performance.now();
  const off = options.off ? '&waypost_off=1' : '';
  const res = await fetch(`${site.url}/?waypost_test=checkout&from=${FROM}&email=${encodeURIComponent(email)}${off}`,
    { redirect: 'manual' });
  await res.arrayBuffer();
  const ms = performance.now() - started;
  expect(res.status).toBe(302);
  const ids = Object.fromEntries((res.headers.get('x-waypost-test') ?? '').split(';').map((p) => p.trim().split('='))
    .map(([k, v]) => [k, Number(v)]));
  const flushLog = await readFile(path.join(site.dir, '.waypost-flush-ms'), 'utf8').catch(() => '');
  const line = flushLog.split('\n').find((l) => l.startsWith(`${email} `));
  const shutdownMs = line ? Number(line.split(' ')[1]) : NaN;
  return { ms, shutdownMs, end: Date.now(), booking: ids.booking, customer: ids.customer, payment: ids.payment };
}

/** Whole request as the client sees it, and the bridge's own time at shutdown (measured inside PHP), per scenario. */
export class Timings {
  readonly request: Record<string, number[]> = { off: [], up: [], down: [], hang: [], cooldown: [] };
  readonly shutdown: Record<string, number[]> = { off: [], up: [], down: [], hang: [], cooldown: [] };

  /** Records a checkout's durations under a scenario. */
  timed<T extends { ms: number; shutdownMs: number }>(scenario: string, c: T): T {
    this.request[scenario].push(c.ms);
    this.shutdown[scenario].push(c.shutdownMs);
    return c;
  }

  print() {
    const { request, shutdown } = this;
    if (!request.off.length) return;
    const base = median(request.off);
    const rows = Object.keys(request).filter((k) => request[k].length).map((k) => {
      const added = median(request[k]) - base;
      const vsOff = k === 'off' ? 'baseline' : `${added >= 0 ? '+' : ''}${added.toFixed(0)} ms`;
      return `  ${k.padEnd(9)} n=${request[k].length}  request ${median(request[k]).toFixed(0)} ms (${vsOff}), `
        + `bridge at shutdown ${median(shutdown[k]).toFixed(1)} ms (max ${Math.max(...shutdown[k]).toFixed(1)})`;
    });
    console.log('\ncheckout request durations, medians (forwarding off / Waypost up / down / hanging / cool-down after '
      + `a timeout):\n${rows.join('\n')}`);
  }
}

export interface QueueRow {
  resource: string; record_id: string; op: string; attempts: string; next_attempt_at: string | null;
  last_error: string | null;
}

/** The bridge's retry queue, and WP-Cron's retry of it. */
export const queue = (site: WordPress) => ({
  count: async () => Number((await site.php('echo Waypost_Bridge_Queue_Stats::count();')).trim()),
  rows: async () => JSON.parse(await site.php('global $wpdb; echo wp_json_encode( $wpdb->get_results( "SELECT '
    + 'resource, record_id, op, attempts, next_attempt_at, last_error FROM {$wpdb->prefix}waypost_queue ORDER BY id",'
    + ' ARRAY_A ) );')) as QueueRow[],
  /** Time passes: every queued row becomes due. */
  makeDue: () => site.sql(
    "UPDATE wp_waypost_queue SET next_attempt_at = '2000-01-01 00:00:00' WHERE next_attempt_at IS NOT NULL"),
  runCron: () => site.php("do_action( 'waypost_bridge_retry_queue' );"),
});

/** The events the receiver got whose data matches. */
export const eventsOf = (receiver: Receiver) => (matches: (data: any) => boolean) => receiver.requests
  .map((r) => JSON.parse(r.raw.toString('utf8')))
  .filter((e) => matches(e.data));

/**
 * Starts the world before a suite's tests and stops it (printing the timings) after them; call inside `describe`.
 * What the suites do, bound to the world: `site`, `front` and `waypost` are there once `beforeAll` has run, and
 * `prepare` runs right after the start (warm-ups, a baseline).
 */
export function forwardingSuite(prepare?: (suite: ForwardingSuite) => Promise<void>): ForwardingSuite {
  let world: Partial<ForwardingSite> = {};
  const times = new Timings();
  const started = () => world as ForwardingSite;
  const suite: ForwardingSuite = {
    get waypost() { return started().waypost; },
    get front() { return started().front; },
    get site() { return started().site; },
    times, timings: times.request, shutdown: times.shutdown,
    timed: (scenario, c) => times.timed(scenario, c),
    checkout: (email, options) => checkout(started().site, email, options),
    queueCount: () => queue(started().site).count(),
    queueRows: () => queue(started().site).rows(),
    makeDue: () => queue(started().site).makeDue(),
    runCron: () => queue(started().site).runCron(),
    events: (matches) => eventsOf(started().receiver)(matches),
  };
  beforeAll(async () => {
    world = await startForwardingSite();
    await prepare?.(suite);
  }, 120_000);
  afterAll(async () => {
    times.print();
    await stopForwardingSite(world);
  });
  return suite;
}

export interface ForwardingSuite {
  readonly waypost: Waypost;
  readonly front: WaypostFront;
  readonly site: WordPress;
  times: Timings;
  timings: Timings['request'];
  shutdown: Timings['shutdown'];
  timed<T extends { ms: number; shutdownMs: number }>(scenario: string, c: T): T;
  checkout(email: string, options?: { off?: boolean }): ReturnType<typeof checkout>;
  queueCount(): Promise<number>;
  queueRows(): Promise<QueueRow[]>;
  makeDue(): Promise<unknown>;
  runCron(): Promise<unknown>;
  events(matches: (data: any) => boolean): any[];
}
