// Erase or export one person (issue 34), through four doors: the host API (WordPress's privacy tools), the admin API
// (the console), and the CLI, all calling these. An erasure is a job with progress, recorded without the person's
// data; an export is one JSON document of everything Waypost holds about them.
import type { Core } from '../core.js';
import { emailSha256 } from '../records/normalize.js';
import { personQuery } from './input.js';
import {
  createErasure, erasureView, getErasure, updateErasure, type ErasureView,
} from './jobs.js';
import { recordAudit, type Actor } from '../audit/record.js';
import { erasePerson } from './erase.js';
import { keepPastSubject } from './past-subjects.js';

export { exportPerson, previewErasure } from './export.js';
export { getErasure, listErasures, type ErasureView } from './jobs.js';
export { personQuery } from './input.js';

/** The write listener that keeps whose a deleted or reassigned record's events were (past-subjects.ts). */
export function installPrivacy(core: Core): void {
  core.writeListeners.push(keepPastSubject);
}

const running = new WeakMap<Core, Set<Promise<void>>>();

export interface EraseWatch {
  onStep?: (view: ErasureView) => void;
}

async function begin(core: Core, body: unknown, actor: Actor, watch: EraseWatch):
Promise<{ view: ErasureView; done: Promise<void> }> {
  const q = personQuery(body);
  const hash = q.email ? emailSha256(q.email) : null;
  const row = await createErasure(core, hash, q.customerId, actor);
  // Who asked, when and from where: the audit log names the erasure, never the person.
  await recordAudit(core, actor, { action: 'person.erased', targetType: 'erasure', targetId: row.id,
    details: { email_sha256: hash, customer_id: q.customerId } });
  // The job's row is read back only for a watcher (the CLI): the HTTP doors answer from GET.
  const report = async () => { if (watch.onStep) watch.onStep(await getErasure(core, row.id)); };
  const done = erasePerson(core, q, {
    async step(step, counts, webhooks) {
      await updateErasure(core, row.id, { step, counts, webhooks });
      await report();
    },
  }).then(async ({ counts, eventIds }) => {
    await updateErasure(core, row.id, { step: 'done', counts, eventId: eventIds[0] ?? null, status: 'succeeded' });
    // Never the person's data: the job's id and what it did.
    core.log.info({ erasure: row.id, counts }, 'personal data erased');
    await report();
  }, async (err: unknown) => {
    // The error's name and code only: a database error's message can quote the values it was given.
    const { name, code } = (err ?? {}) as { name?: string; code?: string };
    core.log.error({ erasure: row.id, error: name, code }, 'erasure failed');
    await updateErasure(core, row.id, { status: 'failed', error: 'The erasure stopped on an error; ask again.' });
    await report();
    throw err;
  });
  const jobs = running.get(core) ?? new Set();
  running.set(core, jobs);
  const tracked = done.catch(() => {}).finally(() => jobs.delete(tracked));
  jobs.add(tracked);
  return { view: erasureView(row, core.clock.now()), done };
}

/** Starts an erasure in the background; answers it as it starts (GET it for progress). */
export async function startErasure(core: Core, body: unknown, actor: Actor): Promise<ErasureView> {
  return (await begin(core, body, actor, {})).view;
}

/** Runs an erasure to its end (the CLI); `onStep` sees each step. Throws what stopped it. */
export async function eraseNow(core: Core, body: unknown, actor: Actor, watch: EraseWatch = {}):
Promise<ErasureView> {
  const { view, done } = await begin(core, body, actor, watch);
  await done;
  return getErasure(core, view.id);
}

/** On close: erasures under way finish (they are short: a person's records, events and deliveries). */
export async function closePrivacy(core: Core): Promise<void> {
  await Promise.all([...(running.get(core) ?? [])]);
}
