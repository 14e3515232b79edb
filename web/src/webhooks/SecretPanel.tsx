// The signing secret: hidden until revealed, copy; rotate with a grace period (the old secret keeps signing beside
// the new one), or regenerate now for a leaked secret (grace 0). Shows when a rotated-out secret stops signing.
import { useState } from 'react';
import { ApiError, get, post } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyButton } from '../components/CopyButton';
import { Field } from '../components/Field';
import { useToast } from '../components/Toasts';
import { formatDate } from '../format';

interface Rotated {
  secret: string;
}

const GRACE_CHOICES: Array<[number, string]> = [
  [3600, '1 hour'], [86_400, '24 hours'], [3 * 86_400, '3 days'], [7 * 86_400, '7 days'],
];

interface Props {
  webhookId: string;
  initialSecret?: string | null;
  /** While a rotation's grace period lasts, when the previous secret stops signing (the polled webhook's). */
  previousExpiresAt?: string | null;
  /** Reloads the webhook, which brings the new expiry. */
  onRotated?: () => unknown;
}

export function SecretPanel({ webhookId, initialSecret, previousExpiresAt, onRotated }: Props) {
  const toast = useToast();
  const [secret, setSecret] = useState<string | null>(initialSecret ?? null);
  const [revealed, setRevealed] = useState(!!initialSecret);
  const [dialog, setDialog] = useState<'rotate' | 'regenerate' | null>(null);
  const [grace, setGrace] = useState(86_400);
  const [error, setError] = useState<string | null>(null);

  const reveal = async () => {
    setError(null);
    try {
      if (!secret) setSecret((await get<{ secret: string }>(`/webhooks/${webhookId}/secret`)).secret);
      setRevealed(true);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };
  const rotated = (res: Rotated) => {
    setSecret(res.secret);
    setRevealed(true);
    onRotated?.();
  };

  return (
    <div className="card">
      <div className="card-header">
        <div>
          <h3>Signing secret</h3>
          <p className="muted small">
            Verify the <code>X-Waypost-Signature</code> header (HMAC-SHA256 of the raw body) with this secret to know
            a request came from Waypost. During a rotation's grace period it lists one signature per valid secret,
            comma-separated (<code>sha256=&lt;new&gt;,sha256=&lt;old&gt;</code>): accept the request when any of them
            matches.
          </p>
        </div>
      </div>
      <div className="secret-row">
        <code className="secret-value" data-testid="webhook-secret" aria-label="Signing secret">
          {revealed && secret ? secret : 'whsec_' + '•'.repeat(24)}
        </code>
        {revealed
          ? <button type="button" className="button button-small" onClick={() => setRevealed(false)}>Hide</button>
          : <button type="button" className="button button-small" onClick={reveal}>Reveal</button>}
        {revealed && secret && <CopyButton text={secret} what="signing secret" />}
      </div>
      <div className="secret-row">
        <button type="button" className="button button-small" onClick={() => setDialog('rotate')}>
          Rotate secret…
        </button>
        <button type="button" className="button button-small" onClick={() => setDialog('regenerate')}>
          Regenerate now…
        </button>
      </div>
      {previousExpiresAt && (
        <p className="small secret-expiry" data-testid="previous-secret-expiry">
          The previous secret also signs until <strong>{formatDate(previousExpiresAt)}</strong>: update your receiver
          before then.
        </p>
      )}
      {error && <p className="form-error" role="alert">{error}</p>}
      {dialog === 'rotate' && (
        <ConfirmDialog
          title="Rotate the signing secret?"
          confirmLabel="Rotate secret"
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            rotated(await post<Rotated>(`/webhooks/${webhookId}/rotate-secret`, { grace_seconds: grace }));
            toast('New signing secret created. The previous one keeps working during the grace period.');
          }}
        >
          <p>
            Requests are signed with a new secret from now on. During the grace period they carry the previous
            secret's signature too, so your receiver keeps verifying while you update it.
          </p>
          <p className="muted small">
            Both signature headers then list two values. A receiver that compares the whole header instead of
            accepting any listed value rejects them: update it first, or use <strong>Regenerate now</strong>.
          </p>
          <Field label="Grace period">
            <select value={grace} onChange={(e) => setGrace(Number(e.target.value))}>
              {GRACE_CHOICES.map(([seconds, label]) => <option key={seconds} value={seconds}>{label}</option>)}
            </select>
          </Field>
        </ConfirmDialog>
      )}
      {dialog === 'regenerate' && (
        <ConfirmDialog
          title="Regenerate the signing secret now?"
          confirmLabel="Regenerate secret"
          danger
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            rotated(await post<Rotated>(`/webhooks/${webhookId}/secret/rotate`));
            toast('New signing secret created. Update your receiver.');
          }}
        >
          <p>
            For a leaked secret: the current secret (and any previous one still in a grace period) stops working
            immediately. Requests from now on are signed with the new secret only, so update your receiver right away.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
