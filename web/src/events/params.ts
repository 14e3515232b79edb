// The Events tab keeps its filters, page and open event in the URL hash (as the Logs tab does): shareable.
import { navigate } from '../router';

export function updateEventParams(current: URLSearchParams, changes: Record<string, string | null>): void {
  const next = new URLSearchParams(current);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === '') next.delete(k);
    else next.set(k, v);
  }
  const q = next.toString();
  navigate(`/events${q ? `?${q}` : ''}`);
}

/** The event's current parameters (the URL hash's query), to change one of them from a dialog. */
export const eventParamsNow = () => new URLSearchParams(window.location.hash.split('?')[1] ?? '');
