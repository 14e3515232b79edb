// Hands one event to the local receiver exactly as a webhook arrives (DESIGN.md "Request"): the envelope's bytes,
// both signature schemes keyed with the local secret, the X-Waypost-… and Standard Webhooks headers.
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { signatureHeader, signStandard } from '../../webhooks/sign.js';

export interface FeedEvent {
  id: string;
  type: string;
  created_at: string;
  data: unknown;
  previous_attributes?: unknown;
}

export interface Forwarded {
  status: number | null;
  ms: number;
  error?: string;
}

export interface ForwardOptions {
  url: string;
  secret: string;
  serviceName: string;
  version: string;
  nowMs: () => number;
}

/** The body a webhook carries for the event: the envelope's keys in the order the delivery engine writes them. */
export function envelopeBody(event: FeedEvent): string {
  const { id, type, created_at: createdAt, data, previous_attributes: previous } = event;
  const changed = previous ? { previous_attributes: previous } : {};
  return JSON.stringify({ id, type, created_at: createdAt, data, ...changed });
}

export async function forward(event: FeedEvent, options: ForwardOptions): Promise<Forwarded> {
  const body = envelopeBody(event);
  const started = options.nowMs();
  const timestamp = Math.floor(started / 1000);
  const x = `X-${options.serviceName}`;
  const headers = {
    'content-type': 'application/json',
    'user-agent': `${options.serviceName}-CLI/${options.version}`,
    [`${x}-Signature`]: signatureHeader([options.secret], body),
    [`${x}-Event`]: event.type,
    [`${x}-Delivery`]: `dlv_listen_${randomBytes(8).toString('hex')}`,
    [`${x}-Webhook-Id`]: 'listen',
    [`${x}-Attempt`]: '1',
    'webhook-id': event.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signStandard(options.secret, event.id, timestamp, body),
  };
  try {
    const res = await request(options.url, { method: 'POST', headers, body, headersTimeout: 30_000 });
    await res.body.dump();
    return { status: res.statusCode, ms: options.nowMs() - started };
  } catch (err) {
    return { status: null, ms: options.nowMs() - started, error: (err as Error).message };
  }
}
