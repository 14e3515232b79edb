// "Edit key": change the label, permissions or rate limit of an existing key; the next request with it sees the
// change. The key and secret stay the same.
import { patch } from '../api';
import { Dialog } from '../components/Dialog';
import { confirmLeave } from '../components/leaveGuard';
import { useToast } from '../components/Toasts';
import type { ApiKey } from '../types';
import { KeyForm, keyBody, type RateLimitInfo } from './KeyForm';

interface Props {
  apiKey: ApiKey;
  limits: RateLimitInfo | null;
  onClose: () => void;
  onSaved: () => void;
}

export function EditKeyDialog({ apiKey, limits, onClose, onSaved }: Props) {
  const toast = useToast();
  return (
    <Dialog title={`Edit “${apiKey.label}”`} onClose={() => { if (confirmLeave()) onClose(); }} wide>
      <KeyForm
        initial={{
          label: apiKey.label, permissions: apiKey.permissions,
          rateLimit: apiKey.rate_limit === null ? '' : String(apiKey.rate_limit),
        }}
        limits={limits}
        submitLabel="Save changes"
        busyLabel="Saving…"
        onCancel={onClose}
        onSubmit={async (values) => {
          await patch<ApiKey>(`/keys/${apiKey.id}`, keyBody(values));
          toast(`${values.label.trim()} saved: the next request with this key uses the new settings`);
          onSaved();
          onClose();
        }}
      />
    </Dialog>
  );
}
