// The audit log's record of the admin API's other doors: the host token replaced, WordPress sign-in allowed and
// stopped for an account, a delivery sent again, a test event and a stored event sent; never a token. Who and from
// where as for the rest (audit.test.ts); the CLI's doors: test/cli/audit.test.ts. On both databases.
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { seedDelivery } from '../webhooks/manage/fixtures.js';
import { auditSuite, FROM } from './suite.js';

describe.each(DIALECTS)('the audit log of tokens, accounts and sends on %s', (dialect) => {
  // A host token Waypost stores (without WAYPOST_HOST_TOKEN, which would win), so that the console can replace it.
  const s = auditSuite(dialect, { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' });
  const { call, audit, rows, adminId } = s;

  it('records a replaced host token, WordPress sign-in allowed and stopped, a redelivery, a test and an event sent',
    async () => {
      const hook = (await call('POST', '/webhooks',
        { name: 'CRM', url: 'http://127.0.0.1:9/in', events: ['booking.created'] })).json();
      const replaced = await call('POST', '/wordpress/host-token');
      expect(replaced.statusCode, replaced.body).toBe(200);
      const link = { site_url: 'https://shop.example.com', wp_user_id: 3 };
      expect((await call('PUT', '/account/wordpress-link', link)).statusCode).toBe(200);
      expect((await call('DELETE', '/account/wordpress-link')).statusCode).toBe(200);
      const failed = await seedDelivery(s.wp, hook.id, 'booking.created', 'failed');
      const again = await call('POST', `/deliveries/${failed.deliveryId}/redeliver`);
      expect(again.statusCode, again.body).toBe(201);
      expect((await call('POST', `/webhooks/${hook.id}/test`, { event_type: 'booking.created' })).statusCode).toBe(200);
      expect((await call('POST', `/events/${failed.eventId}/send`, { webhook_id: hook.id })).statusCode).toBe(201);

      const me = await adminId();
      const entries = [...(await audit()).items].reverse().slice(1); // after webhook.created
      expect(entries.map((e) => [e.action, e.target_type, e.target_id, e.details])).toEqual([
        ['host_token.rotated', 'host_token', null, null],
        ['admin.wordpress_linked', 'admin', me, link],
        ['admin.wordpress_unlinked', 'admin', me, null],
        ['delivery.redelivered', 'delivery', failed.deliveryId, { webhook: hook.id, delivery: again.json().id }],
        ['webhook.tested', 'webhook', hook.id, { event_type: 'booking.created' }],
        ['event.sent', 'event', failed.eventId, { webhook: hook.id }],
      ]);
      for (const e of entries) expect(e).toMatchObject({ actor_type: 'admin', ip: FROM });
      expect(JSON.stringify(await rows())).not.toContain(replaced.json().token);
    });
});
