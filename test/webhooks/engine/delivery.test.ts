// Delivering to a real local receiver: signed bodies, headers, wake-up without polling, success = 200 only,
// no redirects, the timeout, response capture, the payload filter and cancellation.
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import type { Config } from '../../../src/config.js';
import type { Filters } from '../../../src/core.js';
import { verifySignature } from '../../../src/index.js';
import { attemptDelivery } from '../../../src/webhooks/delivery/attempt.js';
import { disableWebhook } from '../../../src/webhooks/disable.js';
import { redeliver } from '../../../src/webhooks/delivery-log.js';
import { DeliveryWorker, startWorker, type Worker } from '../../../src/webhooks/index.js';
import { startReceiver, status, type Receiver } from './receiver.js';
import { addWebhook } from './fixtures.js';

const enquiry = { full_name: 'Cy Young', email: 'cy@example.com', message: 'Is May a good month?' };

describe.each(DIALECTS)('webhook delivery on %s', (dialect) => {
  let wp: Waypost;
  let receiver: Receiver;
  let worker: Worker | null = null;
  const setup = async (config: Partial<Config> = {}, filters?: Filters) => {
    receiver = await startReceiver();
    wp = await testWaypost({ dialect, config: { pollMs: 3_600_000, ...config }, filters });
  };
  afterEach(async () => {
    await worker?.stop();
    worker = null;
    await wp.close();
    await receiver.close();
  });
  const onlyDelivery = async () => wp.core.db.selectFrom('deliveries').selectAll().executeTakeFirstOrThrow();
  const attempts = async () => wp.core.db.selectFrom('delivery_attempts').selectAll().orderBy('attempt').execute();

  it('POSTs the event at once after commit (no polling), signed over the exact raw body', async () => {
    await setup();
    const hook = await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
    worker = await startWorker(wp.core);
    const put = await wp.put('enquiries', 3, enquiry);
    const [req] = await receiver.waitFor(1, 5_000);
    expect(req.method).toBe('POST');
    const sig = req.headers['x-waypost-signature'] as string;
    expect(sig).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifySignature(req.raw, sig, hook.secret)).toBe(true);
    expect(verifySignature(req.raw, sig, 'whsec_wrong')).toBe(false);
    expect(verifySignature(Buffer.concat([req.raw, Buffer.from(' ')]), sig, hook.secret)).toBe(false);
    const body = JSON.parse(req.raw.toString('utf8'));
    expect(body).toMatchObject({ type: 'enquiry.created', data: put.record });
    expect(body.id).toMatch(/^evt_/);
    expect(Object.keys(body)).toEqual(['id', 'type', 'created_at', 'data']);
    await expect.poll(async () => (await onlyDelivery()).status).toBe('succeeded');
  });

  it('sends the documented headers, with the Standard Webhooks signature verifiable per that spec', async () => {
    await setup();
    const hook = await addWebhook(wp.core, receiver.url);
    await wp.put('enquiries', 3, enquiry);
    const d = await onlyDelivery();
    const result = await attemptDelivery(wp.core, d.id);
    expect(result).toMatchObject({ status: 'succeeded', attempt: 1, responseStatus: 200, responseBody: 'ok',
      error: null });
    const h = receiver.requests[0].headers;
    expect(h['content-type']).toBe('application/json');
    expect(h['user-agent']).toBe(`Waypost-Hookshot/${wp.config.version}`);
    expect(h['x-waypost-event']).toBe('enquiry.created');
    expect(h['x-waypost-delivery']).toBe(d.id);
    expect(h['x-waypost-webhook-id']).toBe(hook.id);
    expect(h['x-waypost-attempt']).toBe('1');
    expect(h['webhook-id']).toBe(d.event_id);
    const ts = h['webhook-timestamp'] as string;
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(60);
    const key = Buffer.from(hook.secret.slice('whsec_'.length), 'base64');
    const raw = receiver.requests[0].raw.toString('utf8');
    const expected = createHmac('sha256', key).update(`${d.event_id}.${ts}.${raw}`).digest('base64');
    expect(h['webhook-signature']).toBe(`v1,${expected}`);
    // The Standard Webhooks reference library accepts it as it stands (and refuses another secret).
    const standard = { 'webhook-id': h['webhook-id'] as string, 'webhook-timestamp': ts,
      'webhook-signature': h['webhook-signature'] as string };
    expect(new Webhook(hook.secret).verify(raw, standard)).toEqual(JSON.parse(raw));
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(raw, standard)).toThrow();
    // The attempt is logged with the request (signature, never the secret) and the answer.
    const [a] = await attempts();
    expect(a).toMatchObject({ attempt: 1, success: 1, response_status: 200, response_body: 'ok',
      request_url: receiver.url });
    expect(a.request_body).toBe(receiver.requests[0].raw.toString('utf8'));
    expect(a.request_headers).not.toContain(hook.secret);
    expect(a.request_headers).not.toContain(hook.secret.slice('whsec_'.length));
  });

  it('uses WAYPOST_SERVICE_NAME as the header prefix', async () => {
    await setup({ serviceName: 'Tripline' });
    await addWebhook(wp.core, receiver.url);
    await wp.put('enquiries', 3, enquiry);
    await attemptDelivery(wp.core, (await onlyDelivery()).id);
    expect(receiver.requests[0].headers['x-tripline-signature']).toMatch(/^sha256=/);
    expect(receiver.requests[0].headers['user-agent']).toMatch(/^Tripline-Hookshot\//);
  });

  it('treats any status but 200 as a failure and schedules the next attempt', async () => {
    await setup();
    receiver.respond = status(201, 'created');
    await addWebhook(wp.core, receiver.url);
    await wp.put('enquiries', 3, enquiry);
    const result = await attemptDelivery(wp.core, (await onlyDelivery()).id);
    expect(result).toMatchObject({ status: 'pending', responseStatus: 201, responseBody: 'created',
      error: 'HTTP 201: expected 200' });
    const d = await onlyDelivery();
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status: 201, lease_owner: null });
    expect(Number(d.next_attempt_at)).toBeGreaterThanOrEqual(Date.now() + 55_000);
  });

  it('keeps webhook-id (the event id) on every retry and every redelivery: the receiver de-duplicates on it',
    async () => {
    await setup();
    receiver.respond = status(500, 'busy');
    const hook = await addWebhook(wp.core, receiver.url);
    await wp.put('enquiries', 3, enquiry);
    const first = await onlyDelivery();
    await attemptDelivery(wp.core, first.id); // fails: a retry is scheduled
    receiver.respond = status(200, 'ok');
    await attemptDelivery(wp.core, first.id); // the retry
    const again = await redeliver(wp.core, first.id); // a manual redelivery: a new delivery of the same event
    await attemptDelivery(wp.core, again.id);
    const sent = receiver.requests.map((r) => r.headers);
    expect(sent).toHaveLength(3);
    expect(sent.map((h) => h['webhook-id'])).toEqual([first.event_id, first.event_id, first.event_id]);
    expect(sent.map((h) => h['x-waypost-delivery'])).toEqual([first.id, first.id, again.id]);
    expect(again.id).not.toBe(first.id);
    expect(sent.map((h) => h['x-waypost-attempt'])).toEqual(['1', '2', '1']);
    for (const [i, h] of sent.entries()) {
      const raw = receiver.requests[i].raw.toString('utf8');
      const headers = { 'webhook-id': h['webhook-id'] as string, 'webhook-timestamp': h['webhook-timestamp'] as string,
        'webhook-signature': h['webhook-signature'] as string };
      expect(new Webhook(hook.secret).verify(raw, headers)).toMatchObject({ id: first.event_id });
    }
  });

  it('does not follow redirects', async () => {
    await setup();
    const target = await startReceiver();
    receiver.respond = (_req, res) => { res.writeHead(302, { location: target.url }).end(); };
    try {
      await addWebhook(wp.core, receiver.url);
      await wp.put('enquiries', 3, enquiry);
      const result = await attemptDelivery(wp.core, (await onlyDelivery()).id);
      expect(result).toMatchObject({ status: 'pending', responseStatus: 302 });
      expect(result.responseHeaders?.location).toBe(target.url);
      expect(target.requests).toHaveLength(0);
    } finally {
      await target.close();
    }
  });

  it('fails an attempt that gets no answer within the timeout (scaled: 200 ms for 30 s)', async () => {
    await setup({ deliveryTimeoutMs: 200 });
    receiver.respond = () => {}; // never answers
    await addWebhook(wp.core, receiver.url);
    await wp.put('enquiries', 3, enquiry);
    const result = await attemptDelivery(wp.core, (await onlyDelivery()).id);
    expect(result.status).toBe('pending');
    expect(result.error).toMatch(/timeout/);
    expect(result.durationMs).toBeGreaterThanOrEqual(150);
    expect(result.durationMs).toBeLessThan(5_000);
    expect((await attempts())[0]).toMatchObject({ success: 0, response_status: null });
  });

  it('keeps only the first 64 KiB of a large answer', async () => {
    await setup();
    receiver.respond = (_req, res) => { res.writeHead(200).end('x'.repeat(200_000)); };
    await addWebhook(wp.core, receiver.url);
    await wp.put('enquiries', 3, enquiry);
    const result = await attemptDelivery(wp.core, (await onlyDelivery()).id);
    expect(result.status).toBe('succeeded');
    expect((await attempts())[0].response_body).toHaveLength(64 * 1024);
  });

  it("logs the final answer's headers (repeated ones joined, an early 103 answer's dropped) and body", async () => {
    await setup();
    receiver.respond = (_req, res) => {
      res.writeEarlyHints({ link: '</style.css>; rel=preload' });
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Request-Id': 'r-42' }).end('thanks');
    };
    await addWebhook(wp.core, receiver.url);
    await wp.put('enquiries', 3, enquiry);
    const result = await attemptDelivery(wp.core, (await onlyDelivery()).id);
    expect(result.status).toBe('succeeded');
    const [logged] = await attempts();
    expect(logged.response_body).toBe('thanks');
    const headers = JSON.parse(logged.response_headers!);
    expect(headers).toMatchObject({ 'content-type': 'text/plain', 'x-request-id': 'r-42', 'set-cookie': 'a=1, b=2' });
    expect(headers).not.toHaveProperty('link');
  });

  it('records a network error as a failed attempt', async () => {
    await setup();
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    await addWebhook(wp.core, url);
    await wp.put('enquiries', 3, enquiry);
    const result = await attemptDelivery(wp.core, (await onlyDelivery()).id);
    expect(result).toMatchObject({ status: 'pending', responseStatus: null });
    expect(result.error).toMatch(/ECONNREFUSED/);
  });

  it('lets filters.webhookPayload alter the envelope before signing', async () => {
    await setup({}, { webhookPayload: (payload, ctx) => ({ ...payload, tenant: 'acme', delivery: ctx.deliveryId }) });
    const hook = await addWebhook(wp.core, receiver.url);
    await wp.put('enquiries', 3, enquiry);
    const d = await onlyDelivery();
    await attemptDelivery(wp.core, d.id);
    const req = receiver.requests[0];
    expect(JSON.parse(req.raw.toString())).toMatchObject({ tenant: 'acme', delivery: d.id, type: 'enquiry.created' });
    expect(verifySignature(req.raw, req.headers['x-waypost-signature'] as string, hook.secret)).toBe(true);
  });

  it('cancels instead of sending when the webhook was disabled or deleted after queueing', async () => {
    await setup();
    const a = await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
    const b = await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
    await wp.put('enquiries', 3, enquiry);
    await wp.core.db.updateTable('webhooks').set({ active: 0 }).where('id', '=', a.id).execute();
    await wp.core.db.updateTable('webhooks').set({ deleted_at: new Date().toISOString() }).where('id', '=', b.id)
      .execute();
    const w = new DeliveryWorker(wp.core);
    await w.drain();
    const rows = await wp.core.db.selectFrom('deliveries').selectAll().execute();
    expect(rows.map((r) => [r.webhook_id, r.status, r.cancel_reason]).sort())
      .toEqual([[a.id, 'cancelled', 'webhook disabled'], [b.id, 'cancelled', 'webhook deleted']].sort());
    expect(receiver.requests).toHaveLength(0);
  });

  it('disableWebhook cancels pending deliveries with the reason', async () => {
    await setup();
    const a = await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
    await wp.put('enquiries', 3, enquiry);
    await wp.put('enquiries', 4, enquiry);
    await disableWebhook(wp.core.db, wp.core, a.id, 'Disabled by an admin.');
    const hook = await wp.core.db.selectFrom('webhooks').selectAll().where('id', '=', a.id).executeTakeFirstOrThrow();
    expect(hook).toMatchObject({ active: 0, disabled_reason: 'Disabled by an admin.' });
    const rows = await wp.core.db.selectFrom('deliveries').selectAll().execute();
    expect(rows.map((r) => [r.status, r.cancel_reason]))
      .toEqual([['cancelled', 'webhook disabled: Disabled by an admin.'],
      ['cancelled', 'webhook disabled: Disabled by an admin.']]);
  });

  it('respects the per-webhook concurrency limit', async () => {
    await setup({ deliveryConcurrency: 20, perWebhookConcurrency: 2 });
    let open = 0;
    let peak = 0;
    receiver.respond = async (_req, res) => {
      open++;
      peak = Math.max(peak, open);
      await new Promise((r) => setTimeout(r, 40));
      open--;
      res.writeHead(200).end();
    };
    await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
    for (let i = 1; i <= 10; i++) await wp.put('enquiries', i, enquiry);
    await new DeliveryWorker(wp.core).drain();
    expect(receiver.requests).toHaveLength(10);
    expect(peak).toBe(2);
  });

  it('an explicit attempt on a delivery a worker holds waits for that attempt instead of sending twice', async () => {
    await setup();
    receiver.respond = async (_req, res) => {
      await new Promise((r) => setTimeout(r, 300));
      res.writeHead(200).end('late ok');
    };
    await addWebhook(wp.core, receiver.url);
    await wp.put('enquiries', 3, enquiry);
    const d = await onlyDelivery();
    const w = new DeliveryWorker(wp.core);
    const draining = w.drain();
    await receiver.waitFor(1);
    const result = await attemptDelivery(wp.core, d.id);
    await draining;
    expect(result).toMatchObject({ status: 'succeeded', attempt: 1, responseStatus: 200, responseBody: 'late ok' });
    expect(receiver.requests).toHaveLength(1);
  });
});
