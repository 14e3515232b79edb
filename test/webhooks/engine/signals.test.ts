// Receiver signals (DESIGN.md "Retry schedule"), against a real local receiver with a fake clock: a Retry-After on a
// 429 or 503 postpones the next attempt (seconds or HTTP-date, capped at the delay + 1 h); a 410 Gone disables the
// webhook at once with a critical e-mail. Both show in the delivery log.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { DeliveryWorker } from '../../../src/webhooks/index.js';
import { getDelivery } from '../../../src/webhooks/delivery-log.js';
import { startReceiver, status, type Receiver, type Responder } from './receiver.js';
import { addWebhook, fakeClock, mailText, startSmtp } from './fixtures.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const enquiry = { full_name: 'Cy Young', email: 'cy@example.com' };
const answer = (code: number, headers: Record<string, string>): Responder => (_req, res) => {
  res.writeHead(code, headers).end('slow down');
};

describe.each(DIALECTS)('receiver signals on %s', (dialect) => {
  let wp: Waypost;
  let receiver: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let clock: ReturnType<typeof fakeClock>;
  let worker: DeliveryWorker;
  beforeEach(async () => {
    receiver = await startReceiver(status(500));
    smtp = await startSmtp();
    clock = fakeClock();
    wp = await testWaypost({ dialect, clock, config: { smtpUrl: smtp.url, alertEmail: 'owner@example.com' } });
    worker = new DeliveryWorker(wp.core);
  });
  afterEach(async () => {
    await worker.stop();
    await wp.close();
    await receiver.close();
    await smtp.close();
  });

  /** Sends the first attempt of one new delivery; answers the delivery row afterwards. */
  async function firstAttempt(respond: Responder) {
    receiver.respond = respond;
    await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
    await wp.put('enquiries', 1, enquiry);
    await worker.drain();
    expect(receiver.requests).toHaveLength(1);
    return wp.core.db.selectFrom('deliveries').selectAll().executeTakeFirstOrThrow();
  }

  it('a 429 with Retry-After: 120 postpones the 1-minute retry to 2 minutes, and the log says so', async () => {
    const start = clock.now();
    const d = await firstAttempt(answer(429, { 'Retry-After': '120' }));
    expect(d).toMatchObject({ status: 'pending', last_status: 429, next_attempt_at: start + 2 * MINUTE });
    clock.advance(MINUTE);
    await worker.drain();
    expect(receiver.requests, 'not sent at the schedule\'s 1 minute').toHaveLength(1);
    const detail = await getDelivery(wp.core, d.id);
    expect(detail.attempts[0].signal).toBe('postponed by Retry-After: 120 s');
    receiver.respond = status(200);
    clock.advance(MINUTE);
    await worker.drain();
    expect(receiver.requests).toHaveLength(2);
    expect((await getDelivery(wp.core, d.id)).status).toBe('succeeded');
  });

  it('reads the HTTP-date form on a 503', async () => {
    const start = clock.now();
    const d = await firstAttempt(answer(503, { 'Retry-After': new Date(start + 10 * MINUTE).toUTCString() }));
    expect(d).toMatchObject({ status: 'pending', next_attempt_at: start + 10 * MINUTE });
    expect((await getDelivery(wp.core, d.id)).attempts[0].signal).toBe('postponed by Retry-After: 600 s');
  });

  it('caps a huge Retry-After at the schedule\'s delay + 1 hour', async () => {
    const start = clock.now();
    const d = await firstAttempt(answer(429, { 'Retry-After': String(30 * 24 * 3600) }));
    expect(d.next_attempt_at).toBe(start + MINUTE + HOUR);
  });

  it('ignores a Retry-After on a 500, and one shorter than the schedule', async () => {
    const start = clock.now();
    const d = await firstAttempt(answer(500, { 'Retry-After': '120' }));
    expect(d.next_attempt_at).toBe(start + MINUTE);
    expect((await getDelivery(wp.core, d.id)).attempts[0].signal).toBeNull();
    receiver.respond = answer(429, { 'Retry-After': '10' });
    clock.advance(MINUTE);
    await worker.drain();
    const after = await wp.core.db.selectFrom('deliveries').selectAll().executeTakeFirstOrThrow();
    expect(after.next_attempt_at).toBe(start + MINUTE + 5 * MINUTE); // attempt 3 after the schedule's 5 minutes
  });

  it('a 410 disables the webhook at once, e-mails a critical alert and cancels its other pending deliveries',
    { timeout: 60_000 }, async () => {
      const first = await firstAttempt(status(503, 'busy')); // pending, retry in 1 minute
      receiver.respond = status(410, 'gone');
      await wp.put('enquiries', 2, enquiry);
      await worker.drain();
      expect(receiver.requests).toHaveLength(2);

      const webhook = await wp.core.db.selectFrom('webhooks').selectAll().executeTakeFirstOrThrow();
      expect(webhook).toMatchObject({ active: 0, disabled_reason: 'the receiver answered 410 Gone' });
      const rows = await wp.core.db.selectFrom('deliveries').selectAll().orderBy('id').execute();
      const gone = rows.find((r) => r.id !== first.id)!;
      expect(gone).toMatchObject({ status: 'failed', attempts: 1, last_status: 410, next_attempt_at: null });
      expect(rows.find((r) => r.id === first.id)).toMatchObject({
        status: 'cancelled', cancel_reason: 'webhook disabled: the receiver answered 410 Gone', next_attempt_at: null,
      });

      const alerts = await wp.core.db.selectFrom('alerts').selectAll().execute();
      expect(alerts.map((a) => [a.level, a.delivery_id, a.status])).toEqual([['critical', gone.id, 'sent']]);
      expect(smtp.mails).toHaveLength(1);
      expect(smtp.mails[0].subject)
        .toBe('[Waypost] Critical: webhook "Test hook" disabled: the receiver answered 410 Gone');
      expect(mailText(smtp.mails[0].raw)).toContain('has been disabled');
      expect((await getDelivery(wp.core, gone.id)).attempts[0].signal).toBe('webhook disabled: 410 Gone');
      // The CLI's log says it too (the real `waypost`, from source, on the same database).
      const cli = [join(process.cwd(), 'src/cli/main.ts'), 'deliveries', 'show', gone.id];
      const env = { ...process.env, DATABASE_URL: wp.config.databaseUrl, LOG_LEVEL: 'warn' };
      const shown = await promisify(execFile)(join(process.cwd(), 'node_modules/.bin/tsx'), cli, { env });
      expect(shown.stdout).toContain('failed: HTTP 410: expected 200 (webhook disabled: 410 Gone)');

      // Nothing else is sent: not the cancelled retry, not a new event.
      clock.advance(HOUR);
      await wp.put('enquiries', 3, enquiry);
      await worker.drain();
      expect(receiver.requests).toHaveLength(2);
    });
});
