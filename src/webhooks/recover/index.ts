// Recover (DESIGN.md "Delivery log"): after an outage or a disable, redeliver every delivery of one webhook that
// failed or was cancelled since a given time, and send the events missed while it was off (missed.ts). Each is
// redelivered as the manual redeliver does (a new delivery of the same event, `redelivery_of` the original), and only
// once: a delivery that already has a redelivery is skipped, so running recover twice sends nothing twice. A recover
// is a job (jobs.ts) run in short transactions (run.ts): the admin API answers at once and runs it in the background;
// the CLI runs it in the foreground with a progress line.
// Starting one reads no deliveries: the job first counts its total in bounded chunks, then queues.
import type { Core } from '../../core.js';
import { checkInput, type RecoverRequest } from './input.js';
import { countedJob, createJob, finishJob, getJob, jobView, type RecoverJobView } from './jobs.js';
import { countMissed, missedScope } from './missed.js';
import { checkWebhook, countRecoverable, runBatches, runMissed } from './run.js';

export { RECOVERABLE } from './input.js';
export { getJob, listJobs, type RecoverJobView } from './jobs.js';

interface Running {
  stopping: boolean;
  done: Promise<void>;
  error?: unknown; // why it failed, rethrown to the CLI
}
const running = new WeakMap<Core, Set<Running>>();

async function run(core: Core, jobId: string, webhookId: string, req: RecoverRequest, self: Running,
  watch: Watch): Promise<void> {
  try {
    const stopping = () => self.stopping;
    const redeliveries = await countRecoverable(core.db, webhookId, req, {
      stopping, onChunk: (counted) => countedJob(core, jobId, counted, false) });
    // The events missed while it was off, of its types and filter as they are now.
    const scope = req.missed ? await missedScope(core.db, webhookId, req.since) : null;
    const missed = scope && redeliveries !== null ? await countMissed(core.db, scope, {
      stopping, onPage: (counted) => countedJob(core, jobId, redeliveries + counted, false, counted) }) : 0;
    let queued = 0;
    let total: number | null = null;
    if (redeliveries !== null && missed !== null) {
      total = redeliveries + missed;
      await countedJob(core, jobId, total, true, missed);
      watch.onTotal?.(total, missed);
      queued = await runBatches(core, jobId, webhookId, req, { stopping, onBatch: watch.onBatch });
      if (scope && !self.stopping) queued += await runMissed(core, jobId, scope, { stopping, onBatch: watch.onBatch });
    }
    await finishJob(core, jobId, self.stopping ? 'interrupted' : 'done');
    core.log.info({ webhookId, job: jobId, since: req.since, statuses: req.statuses, total, missed, queued },
      'deliveries recovered');
  } catch (err) {
    self.error = err;
    core.log.warn({ webhookId, job: jobId, err }, 'recover stopped');
    await finishJob(core, jobId, 'failed', err instanceof Error ? err.message : String(err)).catch(() => undefined);
  }
}

interface Watch {
  /** The job as it starts (its total not counted yet). */
  onStart?: (job: RecoverJobView) => void;
  /** The total, once counted (before the first batch), and how many of it are missed events. */
  onTotal?: (total: number, missed: number) => void;
  onBatch?: (queued: number) => void;
}

async function begin(core: Core, webhookId: string, body: unknown, watch: Watch = {}):
Promise<{ job: RecoverJobView; self: Running }> {
  const req = checkInput(body);
  await checkWebhook(core.db, webhookId);
  const row = await createJob(core, webhookId, req);
  const self: Running = { stopping: false, done: Promise.resolve() };
  const jobs = running.get(core) ?? new Set();
  running.set(core, jobs);
  jobs.add(self);
  const job = jobView(row, core.clock.now());
  watch.onStart?.(job);
  self.done = run(core, row.id, webhookId, req, self, watch).finally(() => jobs.delete(self));
  return { job, self };
}

/** Starts a recover in the background; answers the job as it starts (GET it for progress). */
export async function startRecover(core: Core, webhookId: string, body: unknown): Promise<RecoverJobView> {
  return (await begin(core, webhookId, body)).job;
}

/** Runs a recover to the end (throws what stopped it); `onStart` gets the job, `onTotal` its total once counted,
 *  `onBatch` each batch's count. */
export async function recoverDeliveries(core: Core, webhookId: string, body: unknown, watch: Watch = {}):
Promise<RecoverJobView> {
  const { job, self } = await begin(core, webhookId, body, watch);
  await self.done;
  if (self.error) throw self.error;
  return getJob(core, webhookId, job.id);
}

/** On close: running recovers stop after their batch and are marked interrupted (running recover again resumes). */
export async function stopRecovers(core: Core): Promise<void> {
  const jobs = [...(running.get(core) ?? [])];
  for (const j of jobs) j.stopping = true;
  await Promise.all(jobs.map((j) => j.done));
}
