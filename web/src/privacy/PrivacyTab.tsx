// Travellers' personal data: export everything Waypost holds about a person, or erase it everywhere (a confirm dialog
// says what goes, and which webhooks were already sent it), and the record of past erasures (without the data).
import { useState, type FormEvent } from 'react';
import { ApiError, get, post } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { EmptyState } from '../components/EmptyState';
import { Field } from '../components/Field';
import { LoadingRows } from '../components/LoadingRows';
import { useToast } from '../components/Toasts';
import { useView } from '../components/view';
import { formatDate } from '../format';
import type { ErasurePreview, ErasureView, ReceivedBy } from '../types';
import { usePolling } from '../usePolling';

const STEPS: Record<ErasureView['step'], string> = {
  finding: 'Finding their data', deliveries: 'Erasing delivery bodies', events: 'Erasing stored events',
  records: 'Erasing records', caches: 'Purging cached answers', compacting: 'Emptying the write-ahead log',
  done: 'Done',
};

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

function Webhooks({ items }: { items: ReceivedBy[] }) {
  return (
    <ul className="privacy-webhooks">
      {items.map((w) => (
        <li key={w.id}><strong>{w.name}</strong> <code>{w.url}</code> ({plural(w.deliveries, 'delivery', 'deliveries')})
          {w.deleted && ' (deleted since)'}</li>
      ))}
    </ul>
  );
}

export function PrivacyTab() {
  const toast = useToast();
  const heading = useView("Travellers' personal data");
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [preview, setPreview] = useState<ErasurePreview | null>(null);
  const [running, setRunning] = useState<string | null>(null);
  const { data, refresh } = usePolling(
    () => get<{ items: ErasureView[] }>('/privacy/erasures'), [], running ? 1000 : 10_000);
  const erasures = data?.items ?? null;
  const current = erasures?.find((e) => e.id === running) ?? null;

  const person = () => ({ email: email.trim() });
  const check = (e: FormEvent) => {
    e.preventDefault();
    setError(email.trim() ? null : 'Enter the person\'s e-mail address.');
    return email.trim() !== '';
  };
  const fail = (err: unknown) => setError(err instanceof ApiError ? err.message : String(err));

  const exportData = async (e: FormEvent) => {
    if (!check(e)) return;
    try {
      const doc = await post<unknown>('/privacy/exports', person());
      const url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = 'waypost-personal-data.json';
      a.click();
      URL.revokeObjectURL(url);
      toast('Export downloaded');
    } catch (err) {
      fail(err);
    }
  };

  const askErase = async (e: FormEvent) => {
    if (!check(e)) return;
    try {
      setPreview(await post<ErasurePreview>('/privacy/preview', person()));
    } catch (err) {
      fail(err);
    }
  };

  const erase = async () => {
    const started = await post<ErasureView>('/privacy/erasures', person());
    setRunning(started.id);
    setEmail('');
    await refresh();
  };

  return (
    <>
      <div className="section-header">
        <div>
          <h2 tabIndex={-1} ref={heading}>Travellers&apos; personal data</h2>
          <p className="muted">
            Answer a traveller&apos;s access or erasure request (GDPR Art. 15 and 17) for everything Waypost keeps:
            records, the search index, stored events, delivery payloads and receivers&apos; answers, and cached API
            answers. WordPress&apos;s <em>Tools › Export/Erase Personal Data</em> does the same through the bridge.
          </p>
        </div>
      </div>
      <form className="card privacy-form" onSubmit={askErase} noValidate>
        <Field label="E-mail address" error={error}
          hint="The e-mail the traveller booked or enquired with (not case-sensitive).">
          <input type="email" value={email} autoComplete="off" onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <div className="button-row">
          <button type="button" className="button" onClick={exportData}>Export data</button>
          <button type="submit" className="button button-danger-ghost">Erase…</button>
        </div>
      </form>
      {current && (
        <div className="card" role="status" aria-live="polite" data-erasure={current.id}>
          <h3>{current.status === 'succeeded' ? 'Erased' : current.status === 'running'
            ? `${STEPS[current.step]}…` : `Erasure ${current.status}`}</h3>
          <p className="muted">
            {plural(current.counts.customers, 'customer')}, {plural(current.counts.bookings, 'booking')} (kept without
            personal data), {plural(current.counts.enquiries, 'enquiry', 'enquiries')},{' '}
            {plural(current.counts.reviews, 'review')} (now &ldquo;Anonymous&rdquo;),{' '}
            {plural(current.counts.events, 'stored event')}, {plural(current.counts.deliveries, 'delivery',
              'deliveries')}.
          </p>
          {current.webhooks.length > 0 && (
            <>
              <p>These webhooks were sent their data before; Waypost cannot recall it. Pass the request on:</p>
              <Webhooks items={current.webhooks} />
            </>
          )}
        </div>
      )}
      <h3>Erasures</h3>
      {!erasures ? <LoadingRows label="Loading erasures…" /> : erasures.length === 0 ? (
        <EmptyState title="No erasures yet">Erasures are listed here, without the person&apos;s data.</EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-label="Erasures">
            <thead>
              <tr>
                <th scope="col">When</th><th scope="col">Asked by</th><th scope="col">Status</th>
                <th scope="col">Erased</th><th scope="col">Sent to webhooks</th><th scope="col">E-mail SHA-256</th>
              </tr>
            </thead>
            <tbody>
              {erasures.map((e) => (
                <tr key={e.id} data-erasure={e.id}>
                  <td>{formatDate(e.created_at)}</td>
                  <td>{e.requester ? `${e.requested_by} (${e.requester})` : e.requested_by}</td>
                  <td>{e.status}</td>
                  <td>{plural(e.counts.customers, 'customer')}, {plural(e.counts.bookings, 'booking')}</td>
                  <td>{e.webhooks.length}</td>
                  <td><code title={e.email_sha256 ?? undefined}>{e.email_sha256?.slice(0, 12) ?? '—'}</code></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {preview && (
        <ConfirmDialog title="Erase this person's data?" confirmLabel="Erase" danger onConfirm={erase}
          onClose={() => setPreview(null)}>
          <p>This cannot be undone. Waypost will:</p>
          <ul>
            <li>delete {plural(preview.customers, 'customer record')} and{' '}
              {plural(preview.enquiries, 'enquiry', 'enquiries')};</li>
            <li>remove the name, e-mail and phone from {plural(preview.bookings, 'booking')} (amounts, dates and
              status stay) and sign {plural(preview.reviews, 'review')} as &ldquo;Anonymous&rdquo;;</li>
            <li>erase their data from {plural(preview.events, 'stored event')} and the payloads and answers of{' '}
              {plural(preview.deliveries, 'delivery', 'deliveries')}, the search index and cached API answers.</li>
          </ul>
          {preview.webhooks.length > 0 && (
            <>
              <p>Already sent to these webhooks (cannot be recalled; subscribers to <code>customer.erased</code> are
                told):</p>
              <Webhooks items={preview.webhooks} />
            </>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}
