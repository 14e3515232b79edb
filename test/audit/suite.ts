// The admin-API audit suites' setup (audit.test.ts, other-actions.test.ts): a Waypost with a signed-in admin on a
// hand-moved clock, each action a second after the last from one address, and the log read back through the API.
import { afterEach, beforeEach, expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { TestDialect } from '../helpers/db.js';
import { manualClock, type FakeClock } from '../helpers/clock.js';
import type { Waypost } from '../../src/sdk.js';
import { openAdminApp, signIn } from '../admin/helpers.js';
import type { AuditLogRow } from '../../src/audit/tables.js';
import type { AuditPage } from '../../src/audit/views.js';

/** Where every request of the suites comes from. */
export const FROM = '203.0.113.7';

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface AuditSuite {
  wp: Waypost;
  app: FastifyInstance;
  clock: FakeClock;
  /** The signed-in admin's headers (session cookie and CSRF token). */
  session: Record<string, string>;
  /** One admin API call, a second after the last, from FROM. */
  call(method: Method, url: string, payload?: object, headers?: Record<string, string>):
    ReturnType<FastifyInstance['inject']>;
  /** A page of GET /admin/api/audit (`query` with its `?`), which must answer 200. */
  audit(query?: string, headers?: Record<string, string>): Promise<AuditPage>;
  /** Every stored entry, oldest first. */
  rows(): Promise<AuditLogRow[]>;
  /** The signed-in admin's id. */
  adminId(): Promise<string>;
}

/** Registers the hooks of a suite on `dialect` (`env`: the Waypost's environment, the tests' default when absent). */
export function auditSuite(dialect: TestDialect, env?: Record<string, string>): AuditSuite {
  const s = {
    call: async (method, url, payload, headers = s.session) => {
      s.clock.advance(1000); // one second between actions: their times differ, as a person's would
      return s.app.inject({ method, url: `/admin/api${url}`, headers, payload, remoteAddress: FROM });
    },
    audit: async (query = '', headers = s.session) => {
      const res = await s.app.inject({ url: `/admin/api/audit${query}`, headers });
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    },
    rows: () => s.wp.core.db.selectFrom('audit_log').selectAll().orderBy('id').execute(),
    adminId: async () => (await s.wp.core.db.selectFrom('admins').select('id').executeTakeFirstOrThrow()).id,
  } as AuditSuite;
  beforeEach(async () => {
    s.clock = manualClock(Date.parse('2026-11-01T09:00:00Z'));
    ({ wp: s.wp, app: s.app } = await openAdminApp(dialect, s.clock,
      { withAdmin: true, env }));
    s.session = (await signIn(s.app)).headers;
  });
  afterEach(async () => s.wp.close());
  return s;
}
