// Recover suites: many failed deliveries of one webhook written straight into the log (as if an outage had
// exhausted them), and waiting for a recover job to end through the admin API.
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Waypost } from '../../../src/sdk.js';
import { newId } from '../../../src/ids.js';

/** Inserts `n` failed deliveries (each of its own event) of `webhookId`, created at `at`; answers their ids. */
export async function seedFailed(wp: Waypost, webhookId: string, n: number, at: string): Promise<string[]> {
  const now = Date.parse(at);
  const ids: string[] = [];
  for (let i = 0; i < n; i += 200) {
    const events = Array.from({ length: Math.min(200, n - i) }, (_, j) => ({
      id: newId('evt', now), type: 'booking.created', resource: 'bookings', record_id: i + j + 1,
      data: JSON.stringify({ id: i + j + 1 }), test: 0, created_at: at,
    }));
    const deliveries = events.map((e) => ({
      id: newId('dlv', now), webhook_id: webhookId, event_id: e.id, event_type: e.type, status: 'failed' as const,
      attempts: 8, next_attempt_at: null, lease_owner: null, lease_until: null, last_status: 500,
      last_error: 'HTTP 500', cancel_reason: null, redelivery_of: null, created_at: at, updated_at: at,
      completed_at: at,
    }));
    await wp.core.db.insertInto('events').values(events).execute();
    await wp.core.db.insertInto('deliveries').values(deliveries).execute();
    ids.push(...deliveries.map((d) => d.id));
  }
  return ids;
}

export interface JobAnswer {
  id: string;
  status: string;
  total: number | null; // null until the job has counted it
  queued: number;
  error: string | null;
}

/** Polls GET /admin/api/webhooks/:id/recover/:job until the job is no longer running. */
export async function waitForJob(app: FastifyInstance, auth: Record<string, string>, webhookId: string,
  jobId: string): Promise<JobAnswer> {
  let job: JobAnswer | undefined;
  await expect.poll(async () => {
    const url = `/admin/api/webhooks/${webhookId}/recover/${jobId}`;
    const res = await app.inject({ method: 'GET', url, headers: auth });
    job = res.json();
    return job?.status;
  }, { timeout: 30_000, interval: 50 }).not.toBe('running');
  return job!;
}
