// Failure alerts: who receives them, and what happens without SMTP, with a failing SMTP server, and when the
// host suppresses them. Real SMTP server (smtp-server) where one is used.
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import type { Config } from '../../src/config.js';
import type { Filters } from '../../src/core.js';
import { sendFailureAlert, type FailureAlert } from '../../src/alerts/index.js';
import { startSmtp } from '../webhooks/engine/fixtures.js';

const alert = (over: Partial<FailureAlert> = {}): FailureAlert => ({
  level: 'warning',
  webhook: { id: 'wh_1', name: 'CRM', url: 'https://crm.example.com/in' },
  deliveryId: 'dlv_1',
  eventId: 'evt_1',
  eventType: 'booking.created',
  attempt: 3,
  totalAttempts: 5,
  error: 'HTTP 503: expected 200',
  nextAttemptAt: '2027-03-01T09:20:00.000Z',
  ...over,
});

describe.each(DIALECTS)('failure alerts on %s', (dialect) => {
  let wp: Waypost;
  let smtp: Awaited<ReturnType<typeof startSmtp>> | null = null;
  const open = async (config: Partial<Config> = {}, filters?: Filters) => {
    wp = await testWaypost({ dialect, config, filters });
  };
  afterEach(async () => {
    await wp.close();
    await smtp?.close();
    smtp = null;
  });

  it('without SMTP_URL stores the alert for the console and logs a warning', async () => {
    await open({ alertEmail: 'owner@example.com' });
    const warnings: string[] = [];
    const warn = wp.core.log.warn.bind(wp.core.log);
    wp.core.log.warn = ((obj: unknown, msg?: string) => {
      warnings.push(String(msg));
      return warn(obj as never, msg as never);
    }) as typeof wp.core.log.warn;
    const row = await sendFailureAlert(wp.core, alert());
    expect(row).toMatchObject({ status: 'stored', recipient: 'owner@example.com', level: 'warning' });
    expect(warnings.some((w) => w.includes('SMTP_URL is not set'))).toBe(true);
    const stored = await wp.core.db.selectFrom('alerts').selectAll().execute();
    expect(stored).toHaveLength(1);
    expect(stored[0].subject).toBe('[Waypost] Warning: webhook "CRM" failed attempt 3 of 5');
    expect(stored[0].body).toContain('Next attempt: 2027-03-01T09:20:00.000Z');
  });

  it('sends to the alert_email setting first, then ALERT_EMAIL, then the first admin', async () => {
    smtp = await startSmtp();
    await open({ smtpUrl: smtp.url, alertEmail: null });
    expect((await sendFailureAlert(wp.core, alert())).status).toBe('stored'); // nobody to send to yet
    await wp.core.db.insertInto('admins' as never)
      .values({ id: 'adm_1', email: 'first@example.com', password_hash: 'x',
      created_at: '2027-01-01T00:00:00Z' } as never).execute();
    expect(await sendFailureAlert(wp.core, alert())).toMatchObject({ status: 'sent', recipient: 'first@example.com' });
    await wp.core.db.insertInto('settings').values({ name: 'alert_email', value: 'ops@example.com' }).execute();
    expect(await sendFailureAlert(wp.core, alert())).toMatchObject({ status: 'sent', recipient: 'ops@example.com' });
    expect(smtp.mails.map((m) => m.to)).toEqual([['first@example.com'], ['ops@example.com']]);
  });

  it('records a failed send with the SMTP error', async () => {
    smtp = await startSmtp();
    const url = smtp.url;
    await smtp.close();
    smtp = null;
    await open({ smtpUrl: url, alertEmail: 'owner@example.com' });
    const row = await sendFailureAlert(wp.core, alert({ level: 'critical', attempt: 5, nextAttemptAt: null }));
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(/ECONNREFUSED|connect/i);
  });

  it('lets filters.suppressFailureEmail suppress an e-mail, which is still recorded', async () => {
    smtp = await startSmtp();
    const seen: unknown[] = [];
    await open({ smtpUrl: smtp.url, alertEmail: 'owner@example.com' },
      { suppressFailureEmail: (ctx) => { seen.push(ctx); return ctx.level === 'warning'; } });
    expect((await sendFailureAlert(wp.core, alert())).status).toBe('suppressed');
    expect((await sendFailureAlert(wp.core, alert({ level: 'critical', attempt: 5, nextAttemptAt: null }))).status)
      .toBe('sent');
    expect(seen[0]).toEqual({ webhookId: 'wh_1', webhookName: 'CRM', eventType: 'booking.created', attempt: 3,
      level: 'warning' });
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0].subject).toBe('[Waypost] Critical: webhook "CRM" disabled after 5 failed attempts');
  });
});
