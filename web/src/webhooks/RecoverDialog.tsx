// "Recover…": redeliver, once, what failed or was cancelled since a time, and send the events missed while the webhook
// was off since then (POST /webhooks/:id/recover, a job run in the background), then follow it with a progress bar
// and counts until done (GET …/recover/:job). Shared by the row action, the editor and the re-enable flow (which
// presets the time and says how many were missed).
import { useEffect, useState, type ReactNode } from 'react';
import { ApiError, get, post } from '../api';
import { Dialog } from '../components/Dialog';
import { Field } from '../components/Field';
import { focusOnMount } from '../components/focus';
import { plural } from '../format';
import type { RecoverJob, Webhook } from '../types';

const DAY_MS = 24 * 60 * 60 * 1000;
const POLL_MS = 500;
const toIso = (local: string) => (local ? new Date(local).toISOString() : '');
const toLocal = (iso: string) => {
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

interface Props {
  webhook: Webhook;
  since?: string; // ISO; default a day ago
  intro?: ReactNode; // what the re-enable flow says was missed
  title?: string;
  onClose: () => void;
  onDone?: () => void;
}

function Progress({ job }: { job: RecoverJob }) {
  const done = job.status !== 'running';
  // The total is counted by the job after it starts (null until then): the bar is indeterminate meanwhile.
  const total = job.total;
  const value = total === null ? job.queued : Math.min(job.queued, total);
  const of = total === null ? value.toLocaleString() : `${value.toLocaleString()} of ${total.toLocaleString()}`;
  const redeliveries = job.queued - job.missed_queued;
  const queued = [
    ...(redeliveries > 0 || job.missed_queued === 0 ? [plural(redeliveries, 'redelivery', 'redeliveries')] : []),
    ...(job.missed_queued > 0 ? [plural(job.missed_queued, 'missed event')] : []),
  ].join(' and ');
  const summary = job.status === 'done'
    ? (job.queued
      ? `Done: queued ${queued}. A running worker sends them now.`
      : 'Nothing left to redeliver: it was redelivered already.')
    : job.status === 'interrupted'
      ? `Interrupted after ${of}. Run Recover again to finish the rest; nothing is sent twice.`
      : `Stopped after ${job.queued.toLocaleString()}: ${job.error ?? 'an error'}`;
  const bar = total === null
    ? { 'aria-valuetext': 'Counting the deliveries to redeliver' }
    : { 'aria-valuemin': 0, 'aria-valuemax': total || 1, 'aria-valuenow': total ? value : 1,
      'aria-valuetext': `${value} of ${total}` };
  return (
    <div className="recover-progress" data-testid="recover-progress">
      <div role="progressbar" aria-label="Redeliveries queued" {...bar} aria-busy={total === null && !done}
        className={total === null ? 'progress progress-indeterminate' : 'progress'}>
        <div className="progress-fill" style={{ width: `${total ? (100 * value) / total : 100}%` }} />
      </div>
      <p role="status" aria-live="polite" tabIndex={-1} ref={focusOnMount} data-testid="recover-status"
        className={job.status === 'failed' || job.status === 'interrupted' ? 'form-error' : undefined}>
        {done ? summary : total === null ? 'Counting the deliveries to redeliver…'
          : `Queued ${of}${job.missed_total ? ` (${plural(job.missed_total, 'missed event')} among them)` : ''}`}
      </p>
    </div>
  );
}

export function RecoverDialog({ webhook: w, since: preset, intro, title, onClose, onDone }: Props) {
  const [since, setSince] = useState(toLocal(preset ?? new Date(Date.now() - DAY_MS).toISOString()));
  const [statuses, setStatuses] = useState<string[]>(['failed', 'cancelled']);
  const [missed, setMissed] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [job, setJob] = useState<RecoverJob | null>(null);

  useEffect(() => {
    if (!job || job.status !== 'running') return undefined;
    const timer = window.setTimeout(async () => {
      try {
        setJob(await get<RecoverJob>(`/webhooks/${w.id}/recover/${job.id}`));
      } catch (err) {
        setError(err instanceof ApiError ? err.message : String(err));
      }
    }, POLL_MS);
    return () => window.clearTimeout(timer);
  }, [job, w.id]);
  // Once per finished job: the parent's onDone is a new function at each of its renders.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useEffect(() => { if (job && job.status !== 'running') onDone?.(); }, [job?.status]);

  const start = async () => {
    setError(null);
    if (!since) return setError('Choose a time to recover from.');
    if (statuses.length === 0 && !missed) return setError('Choose failed, cancelled or missed events.');
    setBusy(true);
    try {
      setJob(await post<RecoverJob>(`/webhooks/${w.id}/recover`, { since: toIso(since), statuses, missed }));
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  const toggle = (s: string, on: boolean) => setStatuses(on ? [...statuses, s] : statuses.filter((x) => x !== s));

  return (
    <Dialog title={title ?? `Recover deliveries to “${w.name}”`} onClose={onClose} footer={job ? (
      <button type="button" className="button" onClick={onClose}>
        {job.status === 'running' ? 'Close (it keeps running)' : 'Done'}
      </button>
    ) : (
      <>
        <button type="button" className="button" onClick={onClose}>Cancel</button>
        <button type="button" className="button button-primary" onClick={start} disabled={busy}>
          {busy ? 'Starting…' : 'Redeliver now'}
        </button>
      </>
    )}>
      {job ? <Progress job={job} /> : (
        <>
          {intro && <div className="confirm-text">{intro}</div>}
          <p className="muted">
            Each delivery is sent again once; any already redelivered are skipped, so running this twice sends nothing
            twice. Events missed while the webhook was disabled are sent once too, as long as they are kept (the
            event retention).
          </p>
          <Field label="Since" hint="Deliveries created, and events missed, at or after this time (your local time).">
            <input type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} />
          </Field>
          <fieldset className="field">
            <legend className="field-label">Which deliveries</legend>
            {(['failed', 'cancelled'] as const).map((s) => (
              <label key={s} className="check">
                <input type="checkbox" checked={statuses.includes(s)} onChange={(e) => toggle(s, e.target.checked)} />
                <span>{s === 'failed' ? 'Failed' : 'Cancelled'}</span>
              </label>
            ))}
            <label className="check">
              <input type="checkbox" checked={missed} onChange={(e) => setMissed(e.target.checked)} />
              <span>Events missed while disabled</span>
            </label>
          </fieldset>
        </>
      )}
      {error && <p className="form-error" role="alert">{error}</p>}
    </Dialog>
  );
}
