// "Send to webhook…": choose a webhook (disabled ones are listed but cannot be chosen), confirm, and one delivery
// of this stored event is queued to it now; the toast says so and the event's outcome list shows the delivery.
import { useState } from 'react';
import { ApiError, post } from '../api';
import { Dialog } from '../components/Dialog';
import { Field } from '../components/Field';
import { useToast } from '../components/Toasts';
import type { Delivery, EventDetail } from '../types';

interface Props {
  event: EventDetail;
  onClose: () => void;
  onSent: (delivery: Delivery) => void;
}

export function SendEventDialog({ event, onClose, onSent }: Props) {
  const toast = useToast();
  const choices = event.webhooks;
  const [webhookId, setWebhookId] = useState(() => choices.find((w) => w.active)?.webhook_id ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const chosen = choices.find((w) => w.webhook_id === webhookId);

  const send = async () => {
    setBusy(true);
    setError(null);
    try {
      const delivery = await post<Delivery>(`/events/${event.envelope.id}/send`, { webhook_id: webhookId });
      toast(`Event sent to ${chosen?.webhook_name ?? 'the webhook'}: delivery queued`);
      onSent(delivery);
      onClose();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
      setBusy(false);
    }
  };

  return (
    <Dialog title="Send to webhook" onClose={onClose} footer={(
      <>
        <button type="button" className="button" onClick={onClose}>Cancel</button>
        <button type="button" className="button button-primary" onClick={send} disabled={busy || !chosen?.active}>
          {busy ? 'Sending…' : 'Send'}
        </button>
      </>
    )}>
      <p className="confirm-text">
        Queue one delivery of <span className="mono">{event.envelope.id}</span> ({event.envelope.type}) to a webhook
        now, whatever its subscriptions and filter. The receiver gets the same event id again.
      </p>
      {choices.length === 0 ? <p className="muted">There is no webhook to send it to.</p> : (
        <Field label="Webhook" error={error}>
          <select value={webhookId} onChange={(e) => setWebhookId(e.target.value)}>
            {choices.map((w) => (
              <option key={w.webhook_id} value={w.webhook_id} disabled={!w.active}>
                {w.active ? w.webhook_name : `${w.webhook_name} (disabled)`}
              </option>
            ))}
          </select>
        </Field>
      )}
    </Dialog>
  );
}
