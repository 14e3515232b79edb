// Request signatures (DESIGN.md "Request"): `X-Waypost-Signature: sha256=<hex>` over the exact raw body, keyed with
// the secret string, and the Standard Webhooks `webhook-signature: v1,<base64>` over `id.timestamp.body`, keyed
// with the base64-decoded part of the secret after `whsec_` (as that spec defines).
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

/** The two HMAC keys of a secret, made once per secret: the worker signs with the same few secrets over and over. */
interface SigningKeys {
  payload: KeyObject; // the secret string's bytes
  standard: KeyObject; // the base64-decoded part after `whsec_`
}
const keysBySecret = new Map<string, SigningKeys>();
const MAX_KEYS = 1_000;

function keysOf(secret: string): SigningKeys {
  let keys = keysBySecret.get(secret);
  if (!keys) {
    const standard = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
    keys = { payload: createSecretKey(Buffer.from(secret)), standard: createSecretKey(standard) };
    if (keysBySecret.size >= MAX_KEYS) keysBySecret.clear();
    keysBySecret.set(secret, keys);
  }
  return keys;
}

/** `sha256=<hex HMAC-SHA256 of body keyed with the secret string>`. */
export function signPayload(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', keysOf(secret).payload).update(body).digest('hex')}`;
}

/** The Standard Webhooks signature `v1,<base64>` of `${id}.${timestampS}.${body}`. */
export function signStandard(secret: string, id: string, timestampS: number, body: string | Buffer): string {
  const mac = createHmac('sha256', keysOf(secret).standard).update(`${id}.${timestampS}.`).update(body).digest('base64');
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
