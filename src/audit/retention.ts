// Audit-log retention: entries older than `audit_retention_days` (setting; default WAYPOST_AUDIT_RETENTION_DAYS) are
// deleted by the worker's retention tick (src/webhooks/retention.ts), by id range (ids begin with their time), 500 at
// a time so writers are never held for long. The only deletion the application makes.
import type { Core } from '../core.js';
import { auditIdAt } from './read.js';

const DAY_MS = 86_400_000;
const BATCH = 500;

/** Deletes the entries older than the retention; returns how many. */
export async function pruneAuditLog(core: Core): Promise<number> {
  const before = auditIdAt(core.clock.now() - (await core.settings.auditRetentionDays()) * DAY_MS);
  let deleted = 0;
  for (;;) {
    const ids = (await core.db.selectFrom('audit_log').select('id').where('id', '<', before)
      .orderBy('id').limit(BATCH).execute()).map((r) => r.id);
    if (ids.length === 0) break;
    const done = await core.db.deleteFrom('audit_log').where('id', 'in', ids).executeTakeFirst();
    deleted += Number(done.numDeletedRows);
    if (ids.length < BATCH) break;
  }
  return deleted;
}
