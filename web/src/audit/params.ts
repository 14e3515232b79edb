// The Audit log tab keeps its filters and page in the URL hash (as the Logs and Events tabs do): shareable.
import { navigate } from '../router';

export function updateAuditParams(current: URLSearchParams, changes: Record<string, string | null>): void {
  const next = new URLSearchParams(current);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === '') next.delete(k);
    else next.set(k, v);
  }
  const q = next.toString();
  navigate(`/audit${q ? `?${q}` : ''}`);
}
