// Minimal payloads (a webhook's `payload: "minimal"`, issue 34): a real local receiver gets the envelope with only
// the record's ids and API link, signed over those bytes, and none of the traveller's personal fields; a full webhook
// beside it still gets the whole record. Set through the admin API; "Send test" honours it too.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../helpers/db.js';
import { apiFixture, booking, type ApiFixture } from '../../api/setup.js';
import { startWorker, type Worker } from '../../../src/webhooks/index.js';
import { verifySignature } from '../../../src/webhooks/sign.js';
import { startReceiver, type Receiver } from './receiver.js';
import { adminHeaders } from '../manage/fixtures.js';

const PERSONAL = ['ana@example.com', 'Ana', 'Silva', '+351 912', 'ana.silva@example.com'];

describe.each(DIALECTS)('minimal payloads on %s', (dialect) => {
  let f: ApiFixture;
  let receiver: Receiver;
  let worker: Worker | null = null;
  let admin: Record<string, string>;

  beforeEach(async () => {
    f = await apiFixture(dialect, { config: { baseUrl: 'https://waypost.example.com' } });
    receiver = await startReceiver();
    admin = await adminHeaders(f.wp);
  });
  afterEach(async () => {
    await worker?.stop();
    worker = null;
    await receiver.close();
    await f.wp.close();
  });

  const create = async (name: string, payload?: string) => {
    const res = await f.app.inject({
      method: 'POST', url: '/admin/api/webhooks', headers: admin,
      payload: { name, url: `${receiver.url}?${name}`, events: ['booking.created', 'booking.updated'],
        ...(payload ? { payload } : {}) },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; secret: string; payload: string };
  };
  const bodiesOf = (hook: { id: string }) => receiver.requests
    .filter((r) => r.headers['x-waypost-webhook-id'] === hook.id);

  it('sends ids and the API link, signed, with no personal field; the full webhook still gets the record',
    async () => {
      const minimal = await create('minimal', 'minimal');
      const full = await create('full');
      expect([minimal.payload, full.payload]).toEqual(['minimal', 'full']);
      worker = await startWorker(f.wp.core);
      await f.wp.put('bookings', 101, booking());
      await f.wp.put('bookings', 101, booking({ status: 'completed', paid_amount: '1250.00' }));
      await receiver.waitFor(4, 10_000);

      const got = bodiesOf(minimal);
      expect(got).toHaveLength(2);
      for (const req of got) {
        const text = req.raw.toString('utf8');
        for (const personal of PERSONAL) expect(text, `${personal} in ${text}`).not.toContain(personal);
        expect(verifySignature(req.raw, String(req.headers['x-waypost-signature']), minimal.secret)).toBe(true);
      }
      const created = JSON.parse(got.find((r) => r.headers['x-waypost-event'] === 'booking.created')!.raw.toString());
      const customerId = created.data.customer_id;
      expect(created).toEqual({
        id: expect.stringMatching(/^evt_/), type: 'booking.created', created_at: expect.any(String),
        data: {
          resource: 'bookings', id: 101, customer_id: customerId, trip_ids: [7], payment_ids: [],
          url: `https://waypost.example.com${f.root}/bookings/101`,
        },
      });
      expect(typeof customerId).toBe('number');
      const updated = JSON.parse(got.find((r) => r.headers['x-waypost-event'] === 'booking.updated')!.raw.toString());
      expect(updated.previous_attributes).toBeUndefined();
      expect(updated.changed).toEqual(expect.arrayContaining(['status', 'paid_amount']));
      // The link answers the full record to an API key.
      const fetched = await f.get(new URL(created.data.url).pathname.slice(f.root.length));
      expect(fetched.statusCode).toBe(200);
      expect(fetched.json().customer.email).toBe('ana@example.com');

      const fullBodies = bodiesOf(full).map((r) => r.raw.toString('utf8'));
      expect(fullBodies).toHaveLength(2);
      for (const text of fullBodies) expect(text).toContain('ana@example.com');
      expect(fullBodies.some((t) => JSON.parse(t).previous_attributes?.status === 'booked')).toBe(true);
    });

  it('is changed with PATCH (a 400 names the field), shown by GET, and Send test honours it', async () => {
    const hook = await create('hook');
    const bad = await f.app.inject({ method: 'PATCH', url: `/admin/api/webhooks/${hook.id}`, headers: admin,
      payload: { payload: 'tiny' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ field: 'payload', detail: expect.stringContaining('"full" or "minimal"') });
    const patched = await f.app.inject({ method: 'PATCH', url: `/admin/api/webhooks/${hook.id}`, headers: admin,
      payload: { payload: 'minimal' } });
    expect(patched.json().payload).toBe('minimal');
    expect((await f.app.inject({ url: `/admin/api/webhooks/${hook.id}`, headers: admin })).json().payload)
      .toBe('minimal');

    const test = await f.app.inject({ method: 'POST', url: `/admin/api/webhooks/${hook.id}/test`, headers: admin,
      payload: { event_type: 'booking.created' } });
    expect(test.json()).toMatchObject({ success: true });
    const [sample] = await receiver.waitFor(1);
    const text = sample.raw.toString('utf8');
    for (const personal of PERSONAL) expect(text).not.toContain(personal);
    expect(JSON.parse(text).data).toEqual({ resource: 'bookings', id: 900001, customer_id: 900101,
      trip_ids: [900201], payment_ids: [900301], url: `https://waypost.example.com${f.root}/bookings/900001` });

    await f.app.inject({ method: 'PATCH', url: `/admin/api/webhooks/${hook.id}`, headers: admin,
      payload: { payload: 'full' } });
    await f.app.inject({ method: 'POST', url: `/admin/api/webhooks/${hook.id}/test`, headers: admin,
      payload: { event_type: 'booking.created' } });
    const [, second] = await receiver.waitFor(2);
    expect(second.raw.toString('utf8')).toContain('ana.silva@example.com');
  });
});
