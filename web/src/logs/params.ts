// The Logs tab keeps its filters in the URL hash, so a filtered view can be bookmarked and shared.
import { navigate } from '../router';

export function updateLogParams(current: URLSearchParams, changes: Record<string, string | null>): void {
  const next = new URLSearchParams(current);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === '') next.delete(k);
    else next.set(k, v);
  }
  const q = next.toString();
  navigate(`/logs${q ? `?${q}` : ''}`);
}
