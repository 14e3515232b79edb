// Signatures as a receiver checks them: `verifySignature` from the package entry, and the Standard Webhooks form.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../../src/index.js';
import { signatureHeader, signPayload, signStandard } from '../../../src/webhooks/sign.js';
import { generateSecret } from '../../../src/webhooks/secrets.js';

describe('signatures', () => {
  const secret = generateSecret();
  const body = '{"id":"evt_1","type":"booking.created","data":{"id":101,"name":"Zoë"}}';

  it('is sha256=<hex HMAC of the raw body keyed with the secret string>', () => {
    expect(signPayload(secret, body)).toBe(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  });

  it('verifies the full header value, the bare hex, a Buffer body, and nothing else', () => {
    const header = signPayload(secret, body);
    expect(verifySignature(body, header, secret)).toBe(true);
    expect(verifySignature(Buffer.from(body, 'utf8'), header, secret)).toBe(true);
    expect(verifySignature(body, header.slice('sha256='.length), secret)).toBe(true);
    expect(verifySignature(body, header.toUpperCase().replace('SHA256=', 'sha256='), secret)).toBe(true);
    expect(verifySignature(body, header, generateSecret())).toBe(false);
    expect(verifySignature(`${body} `, header, secret)).toBe(false);
    expect(verifySignature(body, header.slice(0, -2), secret)).toBe(false);
    expect(verifySignature(body, 'sha256=not-hex', secret)).toBe(false);
    expect(verifySignature(body, '', secret)).toBe(false);
    expect(verifySignature(body, undefined as unknown as string, secret)).toBe(false);
    expect(verifySignature(body, header, '')).toBe(false);
  });

  it('during a rotation lists one signature per secret, and verifies with either (nothing else)', () => {
    const previous = generateSecret();
    const header = signatureHeader([secret, previous], body);
    expect(header).toBe(`${signPayload(secret, body)},${signPayload(previous, body)}`);
    expect(verifySignature(body, header, secret)).toBe(true);
    expect(verifySignature(body, header, previous)).toBe(true);
    expect(verifySignature(body, header.replace(',', ', '), previous)).toBe(true);
    expect(verifySignature(body, header, generateSecret())).toBe(false);
    expect(verifySignature(`${body} `, header, previous)).toBe(false);
    expect(verifySignature(body, `${signPayload(secret, body).slice(0, -2)},sha256=zz`, secret)).toBe(false);
    expect(signatureHeader([secret], body)).toBe(signPayload(secret, body));
  });

  it('round-trips for any body and rejects any single-byte change', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), fc.nat(), (bytes, at) => {
      const raw = Buffer.from(bytes);
      const header = signPayload(secret, raw);
      expect(verifySignature(raw, header, secret)).toBe(true);
      const changed = Buffer.from(raw);
      changed[at % changed.length] ^= 0x01;
      expect(verifySignature(changed, header, secret)).toBe(false);
    }));
  });

  it('Standard Webhooks: v1,<base64 HMAC of id.timestamp.body> keyed with the decoded secret', () => {
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`dlv_1.1772355600.${body}`).digest('base64');
    expect(signStandard(secret, 'dlv_1', 1772355600, body)).toBe(`v1,${expected}`);
  });
});
