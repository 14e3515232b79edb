// A recover's progress, persisted (recover_jobs, migrations 0014 and 0017) so that any API process can answer for it.
// A job still `running` after its lease ran out was interrupted: the process running it stopped without saying so.
// Its total is null until the job has counted it (`counting`), so that starting one reads no deliveries.
import type { Kysely } from 'kysely';
import type { Core } from '../../core.js';
import { notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Database } from '../../store/tables.js';
import type { DeliveryStatus, RecoverJobRow, RecoverJobStatus } from '../tables.js';
import type { RecoverJobView } from '../views.js';
import type { RecoverRequest } from './input.js';

/** How long a running job stays `running` without progress; a batch renews it. */
export const JOB_LEASE_MS = 30_000;
const RECENT = 20;

export type { RecoverJobView };

export function jobView(row: RecoverJobRow, nowMs: number): RecoverJobView {
  const stale = row.status === 'running' && Number(row.lease_until) < nowMs;
  return {
    id: row.id, webhook_id: row.webhook_id, since: row.since,
    statuses: (row.statuses ? row.statuses.split(',') : []) as DeliveryStatus[],
    status: stale ? 'interrupted' : row.status, total: row.counting ? null : Number(row.total),
    queued: Number(row.queued), missed: Number(row.include_missed ?? 0) === 1,
    missed_total: row.counting ? null : Number(row.missed_total ?? 0), missed_queued: Number(row.missed_queued ?? 0),
    error: row.error, created_at: row.created_at, updated_at: row.updated_at, finished_at: row.finished_at,
  };
}

export async function createJob(core: Core, webhookId: string, req: RecoverRequest): Promise<RecoverJobRow> {
  const now = core.clock.now();
  const iso = new Date(now).toISOString();
  const row: RecoverJobRow = {
    id: newId('rcv', now), webhook_id: webhookId, since: req.since, statuses: req.statuses.join(','),
    status: 'running', total: 0, counting: 1, queued: 0, include_missed: req.missed ? 1 : 0, missed_total: 0,
    missed_queued: 0, lease_until: now + JOB_LEASE_MS, error: null,
    created_at: iso, updated_at: iso, finished_at: null,
  };
  await core.db.insertInto('recover_jobs').values(row).execute();
  return row;
}

/** The count so far (`done`: the total; `missed` of it missed events), with the lease renewed: a long count is
 *  progress too. */
export async function countedJob(core: Core, id: string, counted: number, done: boolean, missed = 0): Promise<void> {
  const now = core.clock.now();
  await core.db.updateTable('recover_jobs')
    .set({ total: counted, missed_total: missed, counting: done ? 0 : 1, lease_until: now + JOB_LEASE_MS,
      updated_at: new Date(now).toISOString() })
    .where('id', '=', id).execute();
}

/** Counts a batch (`missed` of it missed events) and renews the lease, in the batch's own transaction (progress and
 *  rows commit together). */
export async function advanceJob(db: Kysely<Database>, core: Core, id: string, queued: number, missed = 0):
Promise<void> {
  const now = core.clock.now();
  await db.updateTable('recover_jobs')
    .set((eb) => ({ queued: eb('queued', '+', queued), missed_queued: eb('missed_queued', '+', missed),
      lease_until: now + JOB_LEASE_MS, updated_at: new Date(now).toISOString() }))
    .where('id', '=', id).execute();
}

export async function finishJob(core: Core, id: string, status: RecoverJobStatus, error: string | null = null):
Promise<void> {
  const iso = new Date(core.clock.now()).toISOString();
  await core.db.updateTable('recover_jobs').set({ status, error, updated_at: iso, finished_at: iso })
    .where('id', '=', id).execute();
}

export async function getJob(core: Core, webhookId: string, id: string): Promise<RecoverJobView> {
  const row = await core.db.selectFrom('recover_jobs').selectAll()
    .where('id', '=', id).where('webhook_id', '=', webhookId).executeTakeFirst();
  if (!row) throw notFound(`Recover ${id} of webhook ${webhookId}`);
  return jobView(row, core.clock.now());
}

/** The webhook's recent recovers, newest first. */
export async function listJobs(core: Core, webhookId: string): Promise<RecoverJobView[]> {
  const rows = await core.db.selectFrom('recover_jobs').selectAll()
    .where('webhook_id', '=', webhookId).orderBy('id', 'desc').limit(RECENT).execute();
  const now = core.clock.now();
  return rows.map((r) => jobView(r, now));
}
