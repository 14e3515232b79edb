// A change and its audit entry commit together (the services record in the change's own transaction): a webhook, a
// key, the settings, the host token, an account's WordPress sign-in, a redelivery or an event sent. When the entry
// cannot be written, the change is not made either, so the log never misses a webhook or key that exists, a secret
// or token that was replaced, a deletion or a delivery queued. On both databases; the entry is refused by a trigger,
// as a write the database turns down (a full disk, a lost connection) would be.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { seedDelivery } from '../webhooks/manage/fixtures.js';
import { auditSuite } from './suite.js';

describe.each(DIALECTS)('audit entries in the change\'s transaction on %s', (dialect) => {
  const s = auditSuite(dialect, { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' });
  const { call, rows } = s;

  /** From now on every audit entry is refused. */
  async function refuseEntries(): Promise<void> {
    const db = s.wp.core.db;
    if (dialect === 'postgres') {
      await sql`CREATE FUNCTION test_refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'the audit log cannot be written'; END $$`.execute(db);
      await sql`CREATE TRIGGER test_refuse_audit BEFORE INSERT ON audit_log
        FOR EACH ROW EXECUTE FUNCTION test_refuse_audit()`.execute(db);
    } else {
      await sql`CREATE TRIGGER test_refuse_audit BEFORE INSERT ON audit_log
        BEGIN SELECT RAISE(ABORT, 'the audit log cannot be written'); END`.execute(db);
    }
  }
  const webhookRow = (id: string) => s.wp.core.db.selectFrom('webhooks').selectAll().where('id', '=', id)
    .executeTakeFirstOrThrow();
  const keyRow = (id: string) => s.wp.core.db.selectFrom('api_keys').selectAll().where('id', '=', id)
    .executeTakeFirstOrThrow();
  const count = async (table: 'webhooks' | 'api_keys') => Number((await s.wp.core.db.selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('makes no change whose entry could not be written', async () => {
    const hook = (await call('POST', '/webhooks',
      { name: 'CRM', url: 'http://127.0.0.1:9/in', events: ['booking.created'] })).json();
    const key = (await call('POST', '/keys', { label: 'BI', permissions: ['bookings.read'] })).json();
    const settings = () => s.wp.core.db.selectFrom('settings').selectAll().orderBy('name').execute();
    const admins = () => s.wp.core.db.selectFrom('admins').selectAll().orderBy('id').execute();
    const [hookBefore, keyBefore, settingsBefore] = [await webhookRow(hook.id), await keyRow(key.id), await settings()];
    const adminsBefore = await admins();
    const failed = await seedDelivery(s.wp, hook.id, 'booking.created', 'failed');
    const deliveries = () => s.wp.core.db.selectFrom('deliveries').select('id').orderBy('id').execute();
    const [deliveriesBefore, entriesBefore] = [await deliveries(), await rows()];
    expect(entriesBefore.map((e) => e.action)).toEqual(['webhook.created', 'key.created']);

    await refuseEntries();
    const attempts = [
      call('POST', '/webhooks', { name: 'ERP', url: 'http://127.0.0.1:9/erp', events: ['booking.created'] }),
      call('PATCH', `/webhooks/${hook.id}`, { name: 'Renamed', url: 'http://127.0.0.1:9/other' }),
      call('POST', `/webhooks/${hook.id}/disable`),
      call('POST', `/webhooks/${hook.id}/rotate-secret`, { grace_seconds: 3600 }),
      call('POST', `/webhooks/${hook.id}/secret/rotate`),
      call('DELETE', `/webhooks/${hook.id}`),
      call('POST', '/keys', { label: 'Other', permissions: ['trips.read'] }),
      call('PATCH', `/keys/${key.id}`, { label: 'Renamed', rate_limit: 5 }),
      call('POST', `/keys/${key.id}/disable`),
      call('DELETE', `/keys/${key.id}`),
      call('PUT', '/settings', { log_retention_days: 10, alert_email: 'ops@example.com' }),
      call('POST', '/wordpress/host-token'),
      call('PUT', '/account/wordpress-link', { site_url: 'https://shop.example.com', wp_user_id: 3 }),
      call('POST', `/deliveries/${failed.deliveryId}/redeliver`),
      call('POST', `/events/${failed.eventId}/send`, { webhook_id: hook.id }),
    ];
    for (const [i, res] of (await Promise.all(attempts)).entries()) {
      expect(res.statusCode, `attempt ${i}: ${res.body}`).toBe(500);
      expect(res.json()).toMatchObject({ code: 'internal_error' });
    }
    // Nothing happened: no new webhook or key, the old ones as they were (name, URL, active, secrets, deletion), the
    // settings and the host token as they were, no WordPress link, no delivery queued.
    expect([await count('webhooks'), await count('api_keys')]).toEqual([1, 1]);
    expect(await webhookRow(hook.id)).toEqual(hookBefore);
    expect(await keyRow(key.id)).toEqual(keyBefore);
    expect(await settings()).toEqual(settingsBefore); // the host token's hash included
    expect(await admins()).toEqual(adminsBefore);
    expect(await deliveries()).toEqual(deliveriesBefore);
    expect(await rows()).toEqual(entriesBefore);
  });
});
