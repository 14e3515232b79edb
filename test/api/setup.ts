// Shared set-up for the REST API suites: a Waypost on a fresh database, an API key, and record builders.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { manualClock, type FakeClock } from '../helpers/clock.js';
import { apiRoot, type Config } from '../../src/config.js';
import type { Clock } from '../../src/core.js';
import { createApiKey, PERMISSIONS, type CreatedApiKey } from '../../src/api/keys.js';
import type { Waypost } from '../../src/sdk.js';
import type { TestDialect } from '../helpers/db.js';
import { testWaypost } from '../helpers/waypost.js';

export interface ApiFixture {
  wp: Waypost;
  app: FastifyInstance;
  root: string;
  key: CreatedApiKey;
  auth: Record<string, string>;
  get(path: string, headers?: Record<string, string>, extra?: Partial<InjectOptions>): Promise<LightMyRequestResponse>;
}

export const authOf = (k: { key: string; secret: string }) => ({ 'access-token': k.key, 'access-secret': k.secret });

export async function apiFixture(dialect: TestDialect,
  options: { config?: Partial<Config>; clock?: Clock; permissions?: string[] } = {}): Promise<ApiFixture> {
  const wp = await testWaypost({ dialect, config: options.config, clock: options.clock });
  const app = await wp.app();
  const root = apiRoot(wp.config);
  const key = await createApiKey(wp.core, { label: 'test app', permissions: options.permissions ?? [...PERMISSIONS] });
  const auth = authOf(key);
  return {
    wp, app, root, key, auth,
    get: (path, headers = auth, extra = {}) => app.inject({ method: 'GET', url: `${root}${path}`, headers, ...extra }),
  };
}

/** A clock the test moves by hand (starting at 2026-03-01T10:00:00Z unless told). */
export const fakeClock = (start = Date.parse('2026-03-01T10:00:00Z')): FakeClock => manualClock(start);

export const booking = (over: Record<string, unknown> = {}) => ({
  status: 'booked', currency: 'EUR', total_amount: '1250.00', paid_amount: '250.00',
  customer: { email: 'ana@example.com', first_name: 'Ana', last_name: 'Silva' },
  trips: [{ trip_id: 7, title: 'Douro Valley', start_date: '2027-05-01', travellers: 2,
    line_items: [{ label: 'Adult', quantity: 2, price: '625.00', total: '1250.00' }] }],
  engine_version: '6.8.0', cart_version: '4.1', ...over,
});

export const trip = (over: Record<string, unknown> = {}) => ({ title: 'Douro Valley Walk', code: 'DV-1',
  destinations: ['Portugal'], activities: ['Walking'], ...over });
export const customer = (over: Record<string, unknown> = {}) => ({ email: 'ana@example.com', first_name: 'Ana',
  last_name: 'Silva', ...over });
export const payment = (over: Record<string, unknown> = {}) => ({ booking_id: 1, status: 'completed', amount: '250.00',
  currency: 'EUR', gateway: 'stripe', transaction_id: 'ch_1', ...over });

/** Parses an RFC 8288 Link header into { rel: url }. */
export function parseLinks(header: string | string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of String(header ?? '').split(/,\s*(?=<)/)) {
    const m = /^<([^>]+)>;\s*rel="([^"]+)"$/.exec(part.trim());
    if (m) out[m[2]] = m[1];
  }
  return out;
}

/** The path + query of an absolute link, relative to the API root (for inject). */
export const relative = (link: string, root: string) => {
  const u = new URL(link);
  return `${u.pathname.slice(root.length)}${u.search}`;
};
