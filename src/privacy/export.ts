// What Waypost holds about one person, as one JSON document (GDPR Art. 15), and what erasing them would touch (the
// console's confirm dialog). Both read by index what findPerson finds: the person's records as the API shows them,
// and the deliveries that carried their data, with time, webhook and outcome.
import type { Core } from '../core.js';
import { present } from '../records/present.js';
import type { PublicRecords } from '../records/schemas.js';
import { emailSha256 } from '../records/normalize.js';
import { personQuery } from './input.js';
import { recordAudit, type Actor } from '../audit/record.js';
import { findPerson, personDeliveries, personEvents, receivedBy } from './person.js';
import type { ErasurePreview } from './views.js';

export type { ErasurePreview };

export interface PersonExport {
  /** What was asked for: the e-mail (the person's own) and/or customer id. */
  subject: { email: string | null; customer_id: number | null };
  generated_at: string;
  records: {
    customers: PublicRecords['customers'][];
    bookings: PublicRecords['bookings'][];
    payments: PublicRecords['payments'][];
    enquiries: PublicRecords['enquiries'][];
    reviews: PublicRecords['reviews'][];
  };
  /** Each time their data was sent, or queued to be sent, to a webhook. */
  deliveries: Array<{
    id: string; event_id: string; event_type: string; webhook: { id: string; name: string; url: string };
    status: string; attempts: number; created_at: string; completed_at: string | null;
  }>;
}

export async function exportPerson(core: Core, body: unknown, actor: Actor): Promise<PersonExport> {
  const q = personQuery(body);
  const p = await findPerson(core.db, q);
  const deliveries = await personDeliveries(core.db, await personEvents(core.db, p));
  const ids = [...new Set(deliveries.map((d) => d.webhook_id))];
  const hooks = new Map((ids.length === 0 ? [] : await core.db.selectFrom('webhooks').select(['id', 'name', 'url'])
    .where('id', 'in', ids).execute()).map((w) => [w.id, w]));
  await recordAudit(core, actor, { action: 'person.exported', targetType: 'person', targetId: null,
    details: { email_sha256: q.email ? emailSha256(q.email) : null, customer_id: q.customerId } });
  return {
    subject: { email: q.email, customer_id: q.customerId },
    generated_at: new Date(core.clock.now()).toISOString(),
    records: {
      customers: await present(core.db, 'customers', p.customers),
      bookings: await present(core.db, 'bookings', p.bookings),
      payments: await present(core.db, 'payments', p.payments),
      enquiries: await present(core.db, 'enquiries', p.enquiries),
      reviews: await present(core.db, 'reviews', p.reviews),
    },
    deliveries: deliveries.map((d) => ({
      id: d.id, event_id: d.event_id, event_type: d.event_type,
      webhook: hooks.get(d.webhook_id) ?? { id: d.webhook_id, name: '(deleted)', url: '' },
      status: d.status, attempts: d.attempts, created_at: d.created_at, completed_at: d.completed_at,
    })),
  };
}

/** What an erasure of this person would erase: the console's confirm dialog says it before anything goes. */
export async function previewErasure(core: Core, body: unknown): Promise<ErasurePreview> {
  const q = personQuery(body);
  const p = await findPerson(core.db, q);
  const events = await personEvents(core.db, p);
  const deliveries = await personDeliveries(core.db, events);
  const webhooks = await receivedBy(core.db, deliveries);
  return {
    email_sha256: q.email ? emailSha256(q.email) : null,
    customers: p.customers.length, bookings: p.bookings.length, enquiries: p.enquiries.length,
    reviews: p.reviews.length, events: events.length, deliveries: deliveries.length,
    webhooks,
  };
}
