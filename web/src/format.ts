// Dates and small text helpers for tables.

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

export function timeAgo(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'Never';
  const s = Math.round((now - new Date(iso).getTime()) / 1000);
  if (s < 5) return 'just now';
  if (s < 60) return `${s}s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} h ago`;
  return formatDate(iso);
}

export function prettyBody(body: string | null | undefined): string {
  if (!body) return '';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
export const formatTime = (iso: string | null | undefined) => (iso ? timeOnly.format(new Date(iso)) : '—');

const SINGULAR: Record<string, string> = {
  bookings: 'booking', trips: 'trip', customers: 'customer', payments: 'payment', enquiries: 'enquiry',
  reviews: 'review',
};

/** "bookings", 1042 → "booking 1042": which record an event concerns. */
export const recordLabel = (resource: string | null, id: number | null) =>
  resource && id !== null ? `${SINGULAR[resource] ?? resource} ${id}` : null;

/** datetime-local value (local time) ⇄ ISO 8601 UTC for the API: the time filters of the Logs and Audit log tabs. */
export const toIso = (local: string) => (local ? new Date(local).toISOString() : '');
export const toLocal = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
