// Minimal payloads (a webhook's `payload: "minimal"`, docs/webhooks.md "Minimal payloads"): the same envelope, but
// `data` only names the record (its resource and id), the ids of the records it relates to, and `url`, its address in
// the read-only API, for receivers that fetch what they need with an API key. No personal field (names, e-mails,
// phones, addresses, messages) is sent; an update's `previous_attributes` becomes `changed`, the changed fields' names.
import { apiRoot, type Config } from '../../config.js';
import { API_RESOURCES } from '../../records/schemas.js';
import { EVENT_RESOURCE, isEventType } from '../catalog.js';
import type { EventRow } from '../tables.js';

type Json = Record<string, unknown>;

// A type, not an interface: filters.webhookPayload takes it as a plain record.
export type MinimalEnvelope = {
  id: string;
  type: string;
  created_at: string;
  data: Json & { resource: string | null; id: number | string | null; url: string | null };
  /** `*.updated` events: the names of the fields that changed (their earlier values are not sent). */
  changed?: string[];
};

const object = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Json : {});
/** An id as the record holds it (a number, or a string some hosts use); anything else is not an id. */
const idOf = (v: unknown): number | string | null => (typeof v === 'number' || typeof v === 'string' ? v : null);
const idsOf = (v: unknown): Array<number | string> =>
  (Array.isArray(v) ? v.map(idOf).filter((id): id is number | string => id !== null) : []);

/** The ids each resource's records point at (the record shapes of DESIGN.md "Records"). */
const RELATED: Record<string, (data: Json) => Json> = {
  bookings: (d) => ({
    customer_id: idOf(object(d.customer).id),
    trip_ids: idsOf(Array.isArray(d.trips) ? d.trips.map((t) => object(t).trip_id) : []),
    payment_ids: idsOf(d.payment_ids),
  }),
  payments: (d) => ({ booking_id: idOf(d.booking_id) }),
  customers: (d) => ({ booking_ids: idsOf(d.booking_ids) }),
  enquiries: (d) => ({ trip_id: idOf(object(d.trip).id) }),
  reviews: (d) => ({ trip_id: idOf(d.trip_id) }),
};

/**
 * The minimal envelope of an event. `url` is absolute (WAYPOST_BASE_URL); null for enquiries and reviews, which the
 * read-only API does not serve.
 */
export function minimalEnvelope(
  config: Config, event: Pick<EventRow, 'id' | 'type' | 'created_at' | 'resource' | 'data' | 'previous_attributes'>,
): MinimalEnvelope {
  const record = object(JSON.parse(event.data));
  const resource = event.resource ?? (isEventType(event.type) ? EVENT_RESOURCE[event.type] : null);
  const id = idOf(record.id);
  const served = resource !== null && (API_RESOURCES as readonly string[]).includes(resource);
  const data = {
    resource, id, ...(resource !== null ? RELATED[resource]?.(record) : {}),
    url: served && id !== null ? `${config.baseUrl}${apiRoot(config)}/${resource}/${encodeURIComponent(id)}` : null,
  };
  const envelope: MinimalEnvelope = { id: event.id, type: event.type, created_at: event.created_at, data };
  if (event.previous_attributes) envelope.changed = Object.keys(object(JSON.parse(event.previous_attributes)));
  return envelope;
}
