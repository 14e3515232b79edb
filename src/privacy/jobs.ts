// Erasures as rows (migration 0030), so that any process answers for one and the record of it outlives the job. The
// person's e-mail is never stored: a job holds it in memory only; one interrupted (its process stopped) is run again
// by asking again, which finds what is left (every step of an erasure can run twice).
import type { Core } from '../core.js';
import { notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { ErasureRow } from './tables.js';
import type { Actor } from '../audit/record.js';
import type { ErasureCounts, ErasureStep, ErasureView, ReceivedBy } from './views.js';

export type { ErasureCounts, ErasureStep, ErasureView, ReceivedBy };

export const ERASURE_LEASE_MS = 60_000;

export const NO_COUNTS: ErasureCounts = {
  customers: 0, bookings: 0, payments: 0, enquiries: 0, reviews: 0, events: 0, deliveries: 0, attempts: 0,
};

export function erasureView(row: ErasureRow, nowMs: number): ErasureView {
  const stale = row.status === 'running' && Number(row.lease_until) < nowMs;
  return {
    id: row.id, status: stale ? 'interrupted' : row.status, step: row.step as ErasureStep,
    email_sha256: row.email_sha256, customer_id: row.customer_id === null ? null : Number(row.customer_id),
    requested_by: row.requested_by as ErasureView['requested_by'], requester: row.requester,
    counts: JSON.parse(row.counts) as ErasureCounts, webhooks: JSON.parse(row.webhooks) as ReceivedBy[],
    event_id: row.event_id, error: row.error, created_at: row.created_at, updated_at: row.updated_at,
    finished_at: row.finished_at,
  };
}

export async function createErasure(core: Core, emailSha256: string | null, customerId: number | null,
  actor: Actor): Promise<ErasureRow> {
  const now = core.clock.now();
  const iso = new Date(now).toISOString();
  const row: ErasureRow = {
    id: newId('ers', now), email_sha256: emailSha256, customer_id: customerId, requested_by: actor.type,
    requester: actor.type === 'host' ? null : actor.name, status: 'running', step: 'finding',
    counts: JSON.stringify(NO_COUNTS), webhooks: '[]', event_id: null, lease_until: now + ERASURE_LEASE_MS, error: null,
    created_at: iso, updated_at: iso, finished_at: null,
  };
  await core.db.insertInto('erasures').values(row).execute();
  return row;
}

export async function updateErasure(core: Core, id: string, patch: {
  step?: ErasureStep; counts?: ErasureCounts; webhooks?: ReceivedBy[]; eventId?: string | null;
  status?: ErasureRow['status']; error?: string | null;
}): Promise<void> {
  const now = core.clock.now();
  const iso = new Date(now).toISOString();
  const final = patch.status !== undefined && patch.status !== 'running';
  await core.db.updateTable('erasures').set({
    ...(patch.step && { step: patch.step }),
    ...(patch.counts && { counts: JSON.stringify(patch.counts) }),
    ...(patch.webhooks && { webhooks: JSON.stringify(patch.webhooks) }),
    ...(patch.eventId !== undefined && { event_id: patch.eventId }),
    ...(patch.status && { status: patch.status }),
    ...(patch.error !== undefined && { error: patch.error }),
    ...(final && { finished_at: iso }),
    lease_until: now + ERASURE_LEASE_MS, updated_at: iso,
  }).where('id', '=', id).execute();
}

export async function getErasure(core: Core, id: string): Promise<ErasureView> {
  const row = await core.db.selectFrom('erasures').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`Erasure ${id}`);
  return erasureView(row, core.clock.now());
}

/** The newest erasures first (ids sort by time), `limit` of them. */
export async function listErasures(core: Core, limit = 50): Promise<ErasureView[]> {
  const rows = await core.db.selectFrom('erasures').selectAll().orderBy('id', 'desc').limit(limit).execute();
  const now = core.clock.now();
  return rows.map((r) => erasureView(r, now));
}
