// The retry schedule with a fake clock: each row of the table (1 m, 5 m, 15 m, 30 m), warning e-mails when
// attempts 3 and 4 fail, a critical e-mail and auto-disable when attempt 5 fails, and cancellation of the
// webhook's other pending deliveries. E-mails are received by a real SMTP server.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { DeliveryWorker } from '../../../src/webhooks/index.js';
import { generateSecret, sealSecret } from '../../../src/webhooks/secrets.js';
import { startReceiver, status, type Receiver } from './receiver.js';
import { addWebhook, fakeClock, mailText, startSmtp } from './fixtures.js';

const MINUTE = 60_000;
const enquiry = { full_name: 'Cy Young', email: 'cy@example.com' };

describe.each(DIALECTS)('retry schedule and failure alerts on %s', (dialect) => {
  let wp: Waypost;
  let receiver: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let clock: ReturnType<typeof fakeClock>;
  beforeEach(async () => {
    receiver = await startReceiver(status(500, 'database down'));
    smtp = await startSmtp();
    clock = fakeClock();
    wp = await testWaypost({ dialect, clock, config: { smtpUrl: smtp.url, alertEmail: 'owner@example.com',
      baseUrl: 'https://waypost.example.com' } });
  });
  afterEach(async () => {
    await wp.close();
    await receiver.close();
    await smtp.close();
  });

  it('retries after 1, 5, 15 and 30 minutes, e-mails warnings after attempts 3 and 4, then disables the webhook',
    async () => {
    const hook = await addWebhook(wp.core, receiver.url, { name: 'Orders to CRM', events: ['enquiry.created'] });
    await wp.put('enquiries', 1, enquiry);
    const worker = new DeliveryWorker(wp.core);
    const delivery = await wp.core.db.selectFrom('deliveries').selectAll().executeTakeFirstOrThrow();

    await worker.drain();
    expect(receiver.requests).toHaveLength(1);
    const table = [[2, 1 * MINUTE], [3, 5 * MINUTE], [4, 15 * MINUTE], [5, 30 * MINUTE]] as const;
    for (const [attempt, delay] of table) {
      clock.advance(delay - 1);
      await worker.drain();
      expect(receiver.requests, `attempt ${attempt} must not start before ${delay} ms`).toHaveLength(attempt - 1);
      clock.advance(1);
      await worker.drain();
      expect(receiver.requests, `attempt ${attempt} starts ${delay} ms after the previous failure`)
        .toHaveLength(attempt);
      const h = receiver.requests[attempt - 1].headers;
      expect(h['x-waypost-attempt']).toBe(String(attempt));
      expect(h['x-waypost-delivery']).toBe(delivery.id);
      expect(smtp.mails.length, `e-mails after attempt ${attempt}`).toBe(attempt === 3 ? 1 : attempt === 4 ? 2
        : attempt === 5 ? 3 : 0);
    }

    const final = await wp.core.db.selectFrom('deliveries').selectAll().where('id', '=', delivery.id)
      .executeTakeFirstOrThrow();
    expect(final).toMatchObject({ status: 'failed', attempts: 5, next_attempt_at: null, last_status: 500 });
    const attempts = await wp.core.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', delivery.id)
      .orderBy('attempt').execute();
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(attempts.every((a) => a.response_body === 'database down' && a.success === 0)).toBe(true);

    const webhook = await wp.core.db.selectFrom('webhooks').selectAll().where('id', '=', hook.id)
      .executeTakeFirstOrThrow();
    expect(webhook.active).toBe(0);
    expect(webhook.disabled_reason).toContain('5 consecutive failed attempts');

    const [warn1, warn2, critical] = smtp.mails;
    expect(warn1.to).toEqual(['owner@example.com']);
    expect(warn1.subject).toBe('[Waypost] Warning: webhook "Orders to CRM" failed attempt 3 of 5');
    const text = mailText(warn1.raw);
    expect(text).toContain(receiver.url);
    expect(text).toContain('enquiry.created');
    expect(text).toContain('Attempt:     3 of 5');
    expect(text).toContain('HTTP 500: expected 200');
    expect(text).toContain(`Next attempt: ${new Date(clock.now() - 30 * MINUTE).toISOString()}`);
    expect(text).toContain(`https://waypost.example.com/admin/#/logs?delivery=${delivery.id}`);
    expect(warn2.subject).toContain('failed attempt 4 of 5');
    expect(critical.subject).toBe('[Waypost] Critical: webhook "Orders to CRM" disabled after 5 failed attempts');
    expect(mailText(critical.raw)).toContain('has been disabled');

    const alerts = await wp.core.db.selectFrom('alerts').selectAll().orderBy('id').execute();
    expect(alerts.map((a) => [a.level, a.status, a.recipient, a.delivery_id])).toEqual([
      ['warning', 'sent', 'owner@example.com', delivery.id],
      ['warning', 'sent', 'owner@example.com', delivery.id],
      ['critical', 'sent', 'owner@example.com', delivery.id],
    ]);

    // A disabled webhook stops firing.
    await wp.put('enquiries', 2, enquiry);
    expect(await wp.core.db.selectFrom('deliveries').selectAll().execute()).toHaveLength(1);
  });

  it('cancels the disabled webhook\'s other pending deliveries with a reason', async () => {
    const hook = await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
    await wp.put('enquiries', 1, enquiry);
    const worker = new DeliveryWorker(wp.core);
    await worker.drain();
    for (const delay of [1, 5, 15]) {
      clock.advance(delay * MINUTE);
      await worker.drain();
    }
    // A second event arrives while the first delivery still has one attempt left; it fails once.
    await wp.put('enquiries', 2, enquiry);
    await worker.drain();
    clock.advance(30 * MINUTE);
    await worker.drain();
    const rows = await wp.core.db.selectFrom('deliveries').selectAll().where('webhook_id', '=', hook.id).orderBy('id')
      .execute();
    expect(rows[0]).toMatchObject({ status: 'failed', attempts: 5 });
    expect(rows[1].status).toBe('cancelled');
    expect(rows[1].cancel_reason).toMatch(/^webhook disabled: 5 consecutive failed attempts/);
    expect(rows[1].next_attempt_at).toBeNull();
    // Nothing more is sent for it later.
    const sent = receiver.requests.length;
    clock.advance(60 * MINUTE);
    await worker.drain();
    expect(receiver.requests).toHaveLength(sent);
  });

  it('a success on a retry ends the delivery without further e-mails', async () => {
    await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
    await wp.put('enquiries', 1, enquiry);
    const worker = new DeliveryWorker(wp.core);
    await worker.drain();
    clock.advance(MINUTE);
    receiver.respond = status(200);
    await worker.drain();
    const d = await wp.core.db.selectFrom('deliveries').selectAll().executeTakeFirstOrThrow();
    expect(d).toMatchObject({ status: 'succeeded', attempts: 2, next_attempt_at: null });
    expect(d.completed_at).not.toBeNull();
    expect(smtp.mails).toHaveLength(0);
  });
});

describe.each(DIALECTS)('a webhook secret that cannot be opened on %s', (dialect) => {
  it('records a failed attempt that names WAYPOST_SECRET_KEY, sends nothing, and follows the retry schedule',
    async () => {
    const receiver = await startReceiver(status(200, 'ok'));
    const clock = fakeClock();
    // Saved under one master key, delivered by a process started with another.
    const wp = await testWaypost({ dialect, clock, config: { secretKey: 'the-other-master-key-0001' } });
    try {
      await addWebhook(wp.core, receiver.url,
        { events: ['enquiry.created'], secret: sealSecret({ secretKey: 'the-original-master-key-01' },
        generateSecret()) });
      await wp.put('enquiries', 1, enquiry);
      await new DeliveryWorker(wp.core).drain();
      expect(receiver.requests).toHaveLength(0);
      const delivery = await wp.core.db.selectFrom('deliveries').selectAll().executeTakeFirstOrThrow();
      expect(delivery).toMatchObject({ status: 'pending', attempts: 1, next_attempt_at: clock.now() + MINUTE });
      expect(delivery.last_error).toContain('WAYPOST_SECRET_KEY');
      const attempts = await wp.core.db.selectFrom('delivery_attempts').selectAll().execute();
      expect(attempts).toHaveLength(1);
      expect(attempts[0]).toMatchObject({ attempt: 1, success: 0, response_status: null });
      expect(attempts[0].error).toMatch(/^not sent: .*WAYPOST_SECRET_KEY/);
    } finally {
      await wp.close();
      await receiver.close();
    }
  });
});
