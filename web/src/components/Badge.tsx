// Status shown with text and colour (never colour alone).
import type { ReactNode } from 'react';

export type Tone = 'green' | 'red' | 'amber' | 'grey' | 'blue';

export function Badge({ tone, children, title }: { tone: Tone; children: ReactNode; title?: string }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      <span className="badge-dot" aria-hidden="true" />
      {children}
    </span>
  );
}

export function deliveryTone(status: string): Tone {
  return status === 'succeeded' ? 'green' : status === 'failed' ? 'red' : status === 'pending' ? 'blue' : 'grey';
}

export const deliveryLabel = (status: string) => ({
  succeeded: 'Succeeded', failed: 'Failed', pending: 'Pending', cancelled: 'Cancelled',
}[status] ?? status);
