// "Add key": label, permissions, optional rate limit. Then the key and secret, shown once, with a curl line ready
// to paste (as `waypost demo` prints); closing asks whether the secret was copied, since it cannot be shown again.
import { useState } from 'react';
import { post } from '../api';
import { CopyButton } from '../components/CopyButton';
import { Dialog } from '../components/Dialog';
import { confirmLeave } from '../components/leaveGuard';
import { focusOnMount } from '../components/focus';
import type { CreatedApiKey } from '../types';
import { KeyForm, keyBody, type RateLimitInfo } from './KeyForm';

const shellQuote = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;

/** The first thing the key may fetch: a short list if it may list something, else one record. */
export function curlLine(key: CreatedApiKey, apiUrl: string): string {
  const list = key.permissions.find((p) => p.endsWith('.list'));
  const path = list ? `${list.split('.')[0]}?perpage=5` : `${key.permissions[0].split('.')[0]}/1`;
  const token = shellQuote(`Access-Token: ${key.key}`);
  return `curl -s -H ${token} -H ${shellQuote(`Access-Secret: ${key.secret}`)} ${shellQuote(`${apiUrl}/${path}`)}`;
}

interface Props {
  limits: RateLimitInfo | null;
  apiUrl: string | null;
  onClose: () => void;
  onCreated: () => void;
}

export function CreateKeyDialog({ limits, apiUrl, onClose, onCreated }: Props) {
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [copied, setCopied] = useState(false);
  const [asking, setAsking] = useState(false);

  if (created) {
    const curl = curlLine(created, apiUrl ?? `${window.location.origin}/api/v1`);
    const close = () => (copied ? onClose() : setAsking(true));
    const footer = asking ? (
      <>
        <button key="back" type="button" className="button" onClick={() => setAsking(false)} ref={focusOnMount}>
          Go back and copy it
        </button>
        <button key="close" type="button" className="button button-danger" onClick={onClose}>
          Yes, I copied it: close
        </button>
      </>
    ) : (
      <button key="saved" type="button" className="button button-primary" onClick={close} ref={focusOnMount}>
        I have saved the secret
      </button>
    );
    return (
      <Dialog key="created" title="Your new API key" onClose={close} footer={footer}>
        {asking ? (
          <div className="callout callout-amber" role="alert">
            <strong>Did you copy the secret?</strong> Once this closes it cannot be shown again; Waypost keeps only a
            hash of it. Without it the key is useless and you would have to create a new one.
          </div>
        ) : (
          <div className="callout callout-amber" role="alert">
            <strong>Copy the secret now.</strong> It is shown only this once; Waypost keeps only a hash of it. If you
            lose it, create a new key.
          </div>
        )}
        <div className="credential">
          <span className="field-label" id="new-key-label">Key (Access-Token)</span>
          <div className="secret-row">
            <code className="secret-value" data-testid="new-key" aria-labelledby="new-key-label">{created.key}</code>
            <CopyButton text={created.key} what="key" />
          </div>
        </div>
        <div className="credential"
          onClickCapture={(e) => { if ((e.target as Element).closest('button')) setCopied(true); }}>
          <span className="field-label" id="new-secret-label">Secret (Access-Secret)</span>
          <div className="secret-row">
            <code className="secret-value" data-testid="new-secret" aria-labelledby="new-secret-label">
              {created.secret}
            </code>
            <CopyButton text={created.secret} what="secret" />
          </div>
        </div>
        <div className="credential"
          onClickCapture={(e) => { if ((e.target as Element).closest('button')) setCopied(true); }}>
          <span className="field-label" id="new-curl-label">Try it</span>
          <div className="secret-row">
            <code className="secret-value" data-testid="new-curl" aria-labelledby="new-curl-label">{curl}</code>
            <CopyButton text={curl} what="curl command" />
          </div>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog key="form" title="Add API key" onClose={() => { if (confirmLeave()) onClose(); }} wide>
      <KeyForm
        initial={{ label: '', permissions: [], rateLimit: '' }}
        limits={limits}
        submitLabel="Create key"
        busyLabel="Creating…"
        onCancel={onClose}
        onSubmit={async (values) => {
          setCreated(await post<CreatedApiKey>('/keys', keyBody(values)));
          onCreated();
        }}
      />
    </Dialog>
  );
}
