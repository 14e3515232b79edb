// The API's permissions: list and read for each resource (DESIGN.md "Read-only REST API v1"), and the event feed's
// (GET /events and POST /events/ack with list, GET /events/{id} with read).
export const RESOURCES = [
  { id: 'bookings', label: 'Bookings' },
  { id: 'trips', label: 'Trips' },
  { id: 'customers', label: 'Customers' },
  { id: 'payments', label: 'Payments' },
  { id: 'events', label: 'Events' },
] as const;

export const ACTIONS = [
  { id: 'list', label: 'List', hint: 'GET /{resource}' },
  { id: 'read', label: 'Read', hint: 'GET /{resource}/{id}' },
] as const;

export const ALL_PERMISSIONS = RESOURCES.flatMap((r) => ACTIONS.map((a) => `${r.id}.${a.id}`));

/** "bookings.list, bookings.read, trips.list" → "Bookings (list, read) · Trips (list)". */
export function describePermissions(permissions: string[]): string {
  if (ALL_PERMISSIONS.every((p) => permissions.includes(p))) return 'All resources (list, read)';
  return RESOURCES.map((r) => {
    const acts = ACTIONS.filter((a) => permissions.includes(`${r.id}.${a.id}`)).map((a) => a.id);
    return acts.length ? `${r.label} (${acts.join(', ')})` : null;
  }).filter(Boolean).join(' · ');
}
