// Secret rotation with a grace period (DESIGN.md "Secret rotation"), end to end: the admin API rotates, a real local
// receiver gets test sends, and the Standard Webhooks reference library verifies what it received.
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../../helpers/db.js';
import { manualClock, type FakeClock } from '../../helpers/clock.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { verifySignature } from '../../../src/webhooks/sign.js';
import { parseGrace } from '../../../src/webhooks/rotation.js';
import { startWorker } from '../../../src/webhooks/index.js';
import { adminHeaders, startReceiver, type Received, type Receiver } from './fixtures.js';

const KEY = { secretKey: 'a-master-key-of-32-characters-ok' };

/** What a receiver would pass to the reference library: the raw body and the three Standard Webhooks headers. */
const verifies = (secret: string, { body, headers }: Received): boolean => {
  const standard = {
    'webhook-id': String(headers['webhook-id']), 'webhook-timestamp': String(headers['webhook-timestamp']),
    'webhook-signature': String(headers['webhook-signature']),
  };
  try {
    new Webhook(secret).verify(body, standard);
    return true;
  } catch {
    return false;
  }
};

describe('the CLI grace syntax', () => {
  it('takes 0 or a whole number with s, m, h or d, from 0 to 7 days', () => {
    expect(parseGrace('0')).toBe(0);
    expect(parseGrace('30m')).toBe(1800);
    expect(parseGrace('24h')).toBe(86_400);
    expect(parseGrace('7d')).toBe(604_800);
    for (const bad of ['8d', '169h', '-1h', '1.5h', '24', 'a day', '', '1w']) {
      expect(() => parseGrace(bad), bad).toThrow(/--grace: expected 0 or a duration/);
    }
  });
});

describe.each(DIALECTS)('secret rotation on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let receiver: Receiver;
  let clock: FakeClock;
  let auth: Record<string, string>;
  beforeEach(async () => {
    // Real time at the start: the reference library refuses timestamps more than 5 minutes from its own clock.
    clock = manualClock(Date.now());
    wp = await testWaypost({ dialect, clock, config: KEY });
    app = await wp.app();
    auth = await adminHeaders(wp);
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
    await wp.close();
  });

  const create = async () => (await app.inject({ method: 'POST', url: '/admin/api/webhooks', headers: auth,
    payload: { name: 'Rotating', url: receiver.url, events: ['booking.created'] } })).json();
  const rotate = (id: string, payload?: Record<string, unknown>) => {
    const url = `/admin/api/webhooks/${id}/rotate-secret`;
    return payload === undefined ? app.inject({ method: 'POST', url, headers: auth })
      : app.inject({ method: 'POST', url, headers: auth, payload });
  };
  const send = async (id: string): Promise<Received> => {
    const res = await app.inject({ method: 'POST', url: `/admin/api/webhooks/${id}/test`, headers: auth });
    expect(res.json().success).toBe(true);
    return receiver.received.at(-1)!;
  };

  it('signs with both secrets during the grace period and with the new one only after it', async () => {
    const hook = await create();
    const res = await rotate(hook.id, { grace_seconds: 60 });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const rotated = res.json();
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(rotated.grace_seconds).toBe(60);
    expect(rotated.previous_secret_expires_at).toBe(new Date(clock.now() + 60_000).toISOString());
    // The webhook shows the expiry (never either secret); the old secret is stored sealed like the new one.
    const shown = (await app.inject({ method: 'GET', url: `/admin/api/webhooks/${hook.id}`, headers: auth })).json();
    expect(shown.previous_secret_expires_at).toBe(rotated.previous_secret_expires_at);
    expect(JSON.stringify(shown)).not.toContain('whsec_');
    const row = await wp.core.db.selectFrom('webhooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow();
    expect(row.previous_secret!.startsWith('enc:v1:')).toBe(true);
    expect(row.previous_secret).not.toContain(hook.secret.slice(6));

    const during = await send(hook.id);
    expect(String(during.headers['webhook-signature'])).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verifies(rotated.secret, during)).toBe(true);
    expect(verifies(hook.secret, during)).toBe(true);
    // The legacy header lists both too (`sha256=<new>,sha256=<old>`): a receiver on either secret verifies it.
    const legacy = String(during.headers['x-waypost-signature']);
    expect(legacy).toMatch(/^sha256=[0-9a-f]{64},sha256=[0-9a-f]{64}$/);
    expect(verifySignature(during.body, legacy, rotated.secret)).toBe(true);
    expect(verifySignature(during.body, legacy, hook.secret)).toBe(true);

    clock.advance(60_000); // the grace period ends exactly now
    const after = await send(hook.id);
    expect(String(after.headers['webhook-signature'])).toMatch(/^v1,\S+$/);
    expect(verifies(rotated.secret, after)).toBe(true);
    expect(verifies(hook.secret, after)).toBe(false);
    expect(String(after.headers['x-waypost-signature'])).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifySignature(after.body, String(after.headers['x-waypost-signature']), hook.secret)).toBe(false);
    const later = (await app.inject({ method: 'GET', url: `/admin/api/webhooks/${hook.id}`, headers: auth })).json();
    expect(later.previous_secret_expires_at).toBeNull();
  });

  it('defaults to 24 hours; rotating again replaces the previous secret; regenerate now stops the old at once',
    async () => {
    const hook = await create();
    const first = (await rotate(hook.id)).json();
    expect(first.grace_seconds).toBe(86_400);
    expect(first.previous_secret_expires_at).toBe(new Date(clock.now() + 86_400_000).toISOString());
    const second = (await rotate(hook.id, { grace_seconds: 3600 })).json();
    const req = await send(hook.id);
    expect(verifies(second.secret, req)).toBe(true);
    expect(verifies(first.secret, req)).toBe(true);
    expect(verifies(hook.secret, req)).toBe(false); // the original was replaced as the previous secret

    const leaked = await app.inject({ method: 'POST', url: `/admin/api/webhooks/${hook.id}/secret/rotate`,
      headers: auth });
    const fresh = leaked.json();
    expect(fresh.previous_secret_expires_at).toBeNull();
    const now = await send(hook.id);
    expect(String(now.headers['webhook-signature'])).toMatch(/^v1,\S+$/);
    expect(verifies(fresh.secret, now)).toBe(true);
    expect(verifies(second.secret, now)).toBe(false);
    expect(verifies(first.secret, now)).toBe(false);
  });

  it('the delivery worker signs real events with both secrets during the grace period', async () => {
    const hook = (await app.inject({ method: 'POST', url: '/admin/api/webhooks', headers: auth,
      payload: { name: 'Worker', url: receiver.url, events: ['enquiry.created'] } })).json();
    const rotated = (await rotate(hook.id, { grace_seconds: 3600 })).json();
    const worker = await startWorker(wp.core);
    try {
      await wp.put('enquiries', 1, { full_name: 'Ada Lovelace', email: 'ada@example.com', message: 'May?' });
      await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(1);
    } finally {
      await worker.stop();
    }
    const [req] = receiver.received;
    expect(verifies(rotated.secret, req!)).toBe(true);
    expect(verifies(hook.secret, req!)).toBe(true);
    expect(verifySignature(req!.body, String(req!.headers['x-waypost-signature']), rotated.secret)).toBe(true);
  });

  it('seals a secret saved before WAYPOST_SECRET_KEY was set as it becomes the previous secret', async () => {
    const hook = await create();
    const plain = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    await wp.core.db.updateTable('webhooks').set({ secret: plain }).where('id', '=', hook.id).execute();
    const rotated = (await rotate(hook.id, { grace_seconds: 600 })).json();
    const row = await wp.core.db.selectFrom('webhooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow();
    expect(row.previous_secret!.startsWith('enc:v1:')).toBe(true);
    const req = await send(hook.id);
    expect(verifies(plain, req)).toBe(true);
    expect(verifies(rotated.secret, req)).toBe(true);
  });

  it('refuses a grace period out of bounds with a 400 naming the field, and changes nothing', async () => {
    const hook = await create();
    for (const grace_seconds of [-1, 604_801, 1.5, '3600', null]) {
      const res = await rotate(hook.id, { grace_seconds });
      expect(res.statusCode, String(grace_seconds)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_field', field: 'grace_seconds' });
      expect(res.json().detail).toContain('grace_seconds');
    }
    expect((await rotate(hook.id, { grace: 60 })).json()).toMatchObject({ status: 400, field: 'grace' });
    const kept = (await app.inject({ method: 'GET', url: `/admin/api/webhooks/${hook.id}/secret`, headers: auth }))
      .json();
    expect(kept.secret).toBe(hook.secret);
    expect((await rotate(hook.id, { grace_seconds: 604_800 })).statusCode).toBe(200);
    expect((await rotate('wh_missing', { grace_seconds: 60 })).statusCode).toBe(404);
  });
});
