// The signing secret: hidden until revealed, copy, and regenerate after a confirmation.
import { useState } from 'react';
import { ApiError, get, post } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyButton } from '../components/CopyButton';
import { useToast } from '../components/Toasts';

export function SecretPanel({ webhookId, initialSecret }: { webhookId: string; initialSecret?: string | null }) {
  const toast = useToast();
  const [secret, setSecret] = useState<string | null>(initialSecret ?? null);
  const [revealed, setRevealed] = useState(!!initialSecret);
  const [confirming, setConfirming] = useState(false);
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

  return (
    <div className="card">
      <div className="card-header">
        <div>
          <h3>Signing secret</h3>
          <p className="muted small">Verify the <code>X-Waypost-Signature</code> header (HMAC-SHA256 of the raw body) with this secret to know a request came from Waypost.</p>
        </div>
      </div>
      <div className="secret-row">
        <code className="secret-value" data-testid="webhook-secret" aria-label="Signing secret">{revealed && secret ? secret : 'whsec_' + '•'.repeat(24)}</code>
        {revealed ? <button type="button" className="button button-small" onClick={() => setRevealed(false)}>Hide</button>
          : <button type="button" className="button button-small" onClick={reveal}>Reveal</button>}
        {revealed && secret && <CopyButton text={secret} what="signing secret" />}
        <button type="button" className="button button-small" onClick={() => setConfirming(true)}>Regenerate…</button>
      </div>
      {error && <p className="form-error" role="alert">{error}</p>}
      {confirming && (
        <ConfirmDialog
          title="Regenerate the signing secret?"
          confirmLabel="Regenerate secret"
          danger
          onClose={() => setConfirming(false)}
          onConfirm={async () => {
            const res = await post<{ secret: string }>(`/webhooks/${webhookId}/secret/rotate`);
            setSecret(res.secret);
            setRevealed(true);
            toast('New signing secret created. Update your receiver.');
          }}
        >
          <p>The current secret stops working immediately. Requests from now on are signed with the new secret, so update your receiver right away.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
