// "Are you sure?" for destructive actions: the confirm button names the action and is red when it destroys.
import { useState, type ReactNode } from 'react';
import { Dialog } from './Dialog';
import { ApiError } from '../api';

interface Props {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}

export function ConfirmDialog({ title, children, confirmLabel, danger, onConfirm, onClose }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      onClose();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
      setBusy(false);
    }
  };
  return (
    <Dialog
      title={title}
      onClose={onClose}
      footer={(
        <>
          <button type="button" className="button" onClick={onClose} data-autofocus>Cancel</button>
          <button type="button" className={`button ${danger ? 'button-danger' : 'button-primary'}`}
            onClick={confirm} disabled={busy}>
            {busy ? 'Working…' : confirmLabel}
          </button>
        </>
      )}
    >
      <div className="confirm-text">{children}</div>
      {error && <p className="form-error" role="alert">{error}</p>}
    </Dialog>
  );
}
