// Request signatures (DESIGN.md "Request"): `X-Waypost-Signature: sha256=<hex>` over the exact raw body, keyed with
// the secret string, and the Standard Webhooks `webhook-signature: v1,<base64>` over `id.timestamp.body`, keyed
// with the base64-decoded part of the secret after `whsec_` (as that spec defines).
import { createHmac, timingSafeEqual } from 'node:crypto';

/** `sha256=<hex HMAC-SHA256 of body keyed with the secret string>`. */
export function signPayload(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** The Standard Webhooks signature `v1,<base64>` of `${id}.${timestampS}.${body}`. */
export function signStandard(secret: string, id: string, timestampS: number, body: string | Buffer): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampS}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/**
 * Receiver side: true when `header` (the full `sha256=<hex>` value, or just the hex) is the signature of the raw
 * `body` with `secret`. Constant-time. Pass the bytes exactly as received, before any JSON parsing.
 */
export function verifySignature(body: string | Buffer, header: string, secret: string): boolean {
  if (typeof header !== 'string' || typeof secret !== 'string' || secret === '') return false;
  const hex = header.trim().replace(/^sha256=/i, '');
  if (!/^[0-9a-f]{64}$/i.test(hex)) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(Buffer.from(hex, 'hex'), expected);
}
