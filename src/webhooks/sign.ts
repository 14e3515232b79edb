// Request signatures (DESIGN.md "Request"): `X-Waypost-Signature: sha256=<hex>` over the exact raw body, keyed with
// the secret string, and the Standard Webhooks `webhook-signature: v1,<base64>` over `id.timestamp.body`, keyed
// with the base64-decoded part of the secret after `whsec_` (as that spec defines). During a rotation's grace
// period each header lists one signature per valid secret (DESIGN.md "Secret rotation").
import { createHmac, timingSafeEqual } from 'node:crypto';

/** `sha256=<hex HMAC-SHA256 of body keyed with the secret string>`. */
export function signPayload(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * The `X-Waypost-Signature` value for the valid secrets, current first: `sha256=<new>,sha256=<old>` during a grace
 * period, so a receiver still holding the old secret verifies (the Standard Webhooks header does the same).
 */
export function signatureHeader(secrets: string[], body: string | Buffer): string {
  return secrets.map((secret) => signPayload(secret, body)).join(',');
}

/** The Standard Webhooks signature `v1,<base64>` of `${id}.${timestampS}.${body}`. */
export function signStandard(secret: string, id: string, timestampS: number, body: string | Buffer): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampS}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/**
 * Receiver side: true when any value of `header` (`sha256=<hex>`, or just the hex; comma-separated during a secret
 * rotation's grace period) is the signature of the raw `body` with `secret`. Each value is compared in constant
 * time. Pass the bytes exactly as received, before any JSON parsing.
 */
export function verifySignature(body: string | Buffer, header: string, secret: string): boolean {
  if (typeof header !== 'string' || typeof secret !== 'string' || secret === '') return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  let valid = false;
  for (const value of header.split(',')) {
    const hex = value.trim().replace(/^sha256=/i, '');
    // Every listed value is compared (no early exit), so the time does not tell which one matched.
    if (/^[0-9a-f]{64}$/i.test(hex) && timingSafeEqual(Buffer.from(hex, 'hex'), expected)) valid = true;
  }
  return valid;
}
