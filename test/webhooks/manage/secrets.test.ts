import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { AppError } from '../../../src/errors.js';
import { createWaypost } from '../../../src/sdk.js';
import { createLogger } from '../../../src/log.js';
import { generateSecret, openSecret, sealSecret } from '../../../src/webhooks/secrets.js';
import { verifySignature } from '../../../src/webhooks/sign.js';
import { adminHeaders, startReceiver, type Receiver } from './fixtures.js';

const KEY = { secretKey: 'a-master-key-of-32-characters-ok' };

describe('webhook secrets', () => {
  it('are whsec_ plus 32 random bytes in base64, never repeated', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const s = generateSecret();
      expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(32);
      seen.add(s);
    }
    expect(seen.size).toBe(50);
  });

  it('are stored plain without a master key, and sealed with a fresh IV with one', () => {
    const plain = generateSecret();
    expect(sealSecret({ secretKey: null }, plain)).toBe(plain);
    const a = sealSecret(KEY, plain);
    const b = sealSecret(KEY, plain);
    expect(a).toMatch(/^enc:v1:[\w-]+:[\w-]+:[\w-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain(plain.slice(6, 20));
    expect(openSecret(KEY, a)).toBe(plain);
    expect(openSecret(KEY, b)).toBe(plain);
    expect(openSecret(KEY, plain)).toBe(plain); // saved before the key was set
  });

  it('cannot be opened without the key, with another key, or after tampering', () => {
    const sealed = sealSecret(KEY, generateSecret());
    expect(() => openSecret({ secretKey: null }, sealed)).toThrow(/WAYPOST_SECRET_KEY is not set/);
    expect(() => openSecret({ secretKey: 'another-master-key-0123456789' }, sealed)).toThrow(AppError);
    const parts = sealed.split(':');
    parts[4] = Buffer.from('tampered-ciphertext').toString('base64url');
    expect(() => openSecret(KEY, parts.join(':'))).toThrow(/different key/);
  });
});

describe.each(DIALECTS)('secrets encrypted at rest on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let receiver: Receiver;
  beforeEach(async () => {
    wp = await testWaypost({ dialect, config: KEY });
    app = await wp.app();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
    await wp.close();
  });

  it('the database never holds the plain secret, and signatures made with the revealed secret verify', async () => {
    const auth = await adminHeaders(wp);
    const created = (await app.inject({ method: 'POST', url: '/admin/api/webhooks', headers: auth,
      payload: { name: 'Signed', url: receiver.url, events: ['booking.created'] } })).json();
    const row = await wp.core.db.selectFrom('webhooks').select('secret').where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.secret.startsWith('enc:v1:')).toBe(true);
    expect(row.secret).not.toContain(created.secret);
    expect(row.secret).not.toContain(created.secret.slice(6));

    const revealed = (await app.inject({ method: 'GET', url: `/admin/api/webhooks/${created.id}/secret`,
      headers: auth })).json().secret;
    expect(revealed).toBe(created.secret);
    const sent = await app.inject({ method: 'POST', url: `/admin/api/webhooks/${created.id}/test`, headers: auth });
    expect(sent.json().success).toBe(true);
    const { body, headers } = receiver.received[0];
    expect(verifySignature(body, String(headers['x-waypost-signature']), revealed)).toBe(true);
    expect(verifySignature(body, String(headers['x-waypost-signature']), generateSecret())).toBe(false);

    const rotated = (await app.inject({ method: 'POST', url: `/admin/api/webhooks/${created.id}/secret/rotate`,
      headers: auth })).json().secret;
    const after = await wp.core.db.selectFrom('webhooks').select('secret').where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(after.secret).not.toContain(rotated.slice(6));
    await app.inject({ method: 'POST', url: `/admin/api/webhooks/${created.id}/test`, headers: auth });
    const second = receiver.received[1];
    expect(verifySignature(second.body, String(second.headers['x-waypost-signature']), rotated)).toBe(true);
    expect(verifySignature(second.body, String(second.headers['x-waypost-signature']), revealed)).toBe(false);
  });

  it('a server started on the same database without the key explains why it cannot reveal the secret', async () => {
    const auth = await adminHeaders(wp);
    const created = (await app.inject({ method: 'POST', url: '/admin/api/webhooks', headers: auth,
      payload: { name: 'Signed', url: receiver.url, events: ['booking.created'] } })).json();
    const keyless = await createWaypost({ env: {}, logger: createLogger('silent'),
      config: { databaseUrl: wp.config.databaseUrl } });
    try {
      const res = await (await keyless.app())
        .inject({ method: 'GET', url: `/admin/api/webhooks/${created.id}/secret`, headers: auth });
      expect(res.json()).toMatchObject({ code: 'secret_key_missing' });
      expect(res.json().detail).toContain('WAYPOST_SECRET_KEY');
      expect(res.body).not.toContain(created.secret);
    } finally {
      await keyless.close();
    }
  });
});
