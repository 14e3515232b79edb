// The request of one attempt: the envelope (or the payload filter's version of it) and the signed headers.
import type { Core } from '../../core.js';
import type { DeliveryRow, EventRow, WebhookRow } from '../tables.js';
import { previousSecret } from '../rotation.js';
import { openSecret } from '../secrets.js';
import { signatureHeader, signStandard } from '../sign.js';
import { minimalEnvelope } from './minimal.js';

/** A delivery ready to be sent: pending, its webhook and event present. */
export interface Prepared {
  delivery: DeliveryRow;
  webhook: WebhookRow;
  event: EventRow;
  attempt: number;
}

export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The request for a prepared delivery (synchronous without a payload filter: the worker's usual case). */
export function buildRequest(core: Core, p: Prepared): OutgoingRequest | Promise<OutgoingRequest> {
  if (p.webhook.payload === 'minimal') return minimalRequest(core, p);
  if (!core.filters.webhookPayload) return signedRequest(core, p, plainBody(p));
  return filteredBody(core, p).then((body) => signedRequest(core, p, body));
}

function plainBody({ event }: Prepared): string {
  return envelopeJson(event);
}

/**
 * The envelope: event.data is the record's JSON already, so it is spliced in rather than parsed and serialised. The
 * feed (GET /events) answers the same bytes.
 */
export function envelopeJson(event: Pick<EventRow, 'id' | 'type' | 'created_at' | 'data' | 'previous_attributes'>) {
  const head = `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)}`;
  const previous = event.previous_attributes ? `,"previous_attributes":${event.previous_attributes}` : '';
  return `${head},"created_at":${JSON.stringify(event.created_at)},"data":${event.data}${previous}}`;
}

/** The envelope passed through filters.webhookPayload, serialised once. */
async function filteredBody(core: Core, p: Prepared): Promise<string> {
  const { id, type, created_at } = p.event;
  const payload = {
    id, type, created_at, data: JSON.parse(p.event.data) as unknown,
    ...(p.event.previous_attributes ? { previous_attributes: JSON.parse(p.event.previous_attributes) as unknown } : {}),
  };
  const context = { webhookId: p.webhook.id, eventType: p.event.type, deliveryId: p.delivery.id };
  return JSON.stringify(await core.filters.webhookPayload!(payload, context));
}

/** A minimal payload (delivery/minimal.ts), passed through filters.webhookPayload when there is one. */
function minimalRequest(core: Core, p: Prepared): OutgoingRequest | Promise<OutgoingRequest> {
  const payload = minimalEnvelope(core.config, p.event);
  if (!core.filters.webhookPayload) return signedRequest(core, p, JSON.stringify(payload));
  const context = { webhookId: p.webhook.id, eventType: p.event.type, deliveryId: p.delivery.id };
  return Promise.resolve(core.filters.webhookPayload(payload, context))
    .then((filtered) => signedRequest(core, p, JSON.stringify(filtered)));
}

interface HeaderNames {
  userAgent: string;
  signature: string;
  event: string;
  delivery: string;
  webhookId: string;
  attempt: string;
}

const headerNamesByConfig = new WeakMap<Core['config'], HeaderNames>();

/** The `X-Waypost-…` header names and the User-Agent for the configured service name (made once per config). */
function headerNames(config: Core['config']): HeaderNames {
  let names = headerNamesByConfig.get(config);
  if (!names) {
    const x = `X-${config.serviceName}`;
    names = {
      userAgent: `${config.serviceName}-Hookshot/${config.version}`, signature: `${x}-Signature`, event: `${x}-Event`,
      delivery: `${x}-Delivery`, webhookId: `${x}-Webhook-Id`, attempt: `${x}-Attempt`,
    };
    headerNamesByConfig.set(config, names);
  }
  return names;
}

/** The request for a body: the headers, with both signatures over those exact bytes. */
function signedRequest(core: Core, p: Prepared, body: string): OutgoingRequest {
  const now = core.clock.now();
  const secret = openSecret(core.config, p.webhook.secret);
  const timestamp = Math.floor(now / 1000);
  // During a rotation's grace period the previous secret signs too, in both headers (`sha256=<new>,sha256=<old>`
  // and `v1,<new> v1,<old>`, DESIGN.md "Secret rotation"): receivers that still hold it keep verifying.
  const previous = previousSecret(core, p.webhook, now);
  const standard = signStandard(secret, p.event.id, timestamp, body);
  const names = headerNames(core.config);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': names.userAgent,
    [names.signature]: signatureHeader(previous ? [secret, previous] : [secret], body),
    [names.event]: p.event.type,
    [names.delivery]: p.delivery.id,
    [names.webhookId]: p.webhook.id,
    [names.attempt]: String(p.attempt),
    // The event id, the same on every retry and redelivery: Standard Webhooks' idempotency key (DESIGN.md).
    'webhook-id': p.event.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': previous ? `${standard} ${signStandard(previous, p.event.id, timestamp, body)}` : standard,
  };
  return { url: p.webhook.url, headers, body };
}
