// The audit log of admin actions (issue 34): what each admin-API door records (webhooks, keys, settings; tokens,
// accounts and sends: other-actions.test.ts), who (a console session, a WordPress
// sign-in, the admin token), from where, never a secret; read back filtered and paged; append-only (the trigger refuses
// UPDATE); pruned after its retention. The CLI's door: test/cli/audit.test.ts.
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH } from '../helpers/waypost.js';
import { sessionCookieOf } from '../admin/helpers.js';
import { rotateAdminToken } from '../../src/admin/token.js';
import { cliActor, recordAudit, requestActor, type Actor } from '../../src/audit/record.js';
import { pruneAuditLog } from '../../src/audit/retention.js';
import { startRetention } from '../../src/webhooks/retention.js';
import type { AuditEntryView, AuditPage } from '../../src/audit/views.js';
import { auditSuite, FROM } from './suite.js';

const DAY = 86_400_000;

describe.each(DIALECTS)('the audit log on %s', (dialect) => {
  const s = auditSuite(dialect);
  const { call, audit, rows, adminId } = s;

  it('records every webhook action in the console, who and from where, never a secret', async () => {
    const created = await call('POST', '/webhooks',
      { name: 'CRM', url: 'http://127.0.0.1:9/in', events: ['booking.created'] });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    const secrets = [created.json().secret as string];
    expect((await call('PATCH', `/webhooks/${id}`, { name: 'CRM 2', events: ['booking.updated'] })).statusCode)
      .toBe(200);
    expect((await call('PATCH', `/webhooks/${id}`, { active: false })).statusCode).toBe(200); // the console's switch
    expect((await call('POST', `/webhooks/${id}/enable`)).statusCode).toBe(200);
    expect((await call('POST', `/webhooks/${id}/disable`)).statusCode).toBe(200);
    expect((await call('POST', `/webhooks/${id}/enable`)).statusCode).toBe(200);
    const revealed = await call('GET', `/webhooks/${id}/secret`);
    secrets.push(revealed.json().secret);
    const rotated = await call('POST', `/webhooks/${id}/rotate-secret`, { grace_seconds: 3600 });
    secrets.push(rotated.json().secret);
    const regenerated = await call('POST', `/webhooks/${id}/secret/rotate`);
    secrets.push(regenerated.json().secret);
    const since = new Date(s.clock.now() - DAY).toISOString();
    const recover = await call('POST', `/webhooks/${id}/recover`, { since });
    expect(recover.statusCode, recover.body).toBe(202);
    expect((await call('DELETE', `/webhooks/${id}`)).statusCode).toBe(204);

    const page = await audit();
    expect(page.next).toBeNull();
    const entries = [...page.items].reverse(); // oldest first, as done
    expect(entries.map((e) => e.action)).toEqual([
      'webhook.created', 'webhook.updated', 'webhook.disabled', 'webhook.enabled', 'webhook.disabled',
      'webhook.enabled', 'webhook.secret_revealed', 'webhook.secret_rotated', 'webhook.secret_rotated',
      'webhook.recovered', 'webhook.deleted',
    ]);
    const who = `${await adminId()} ops@example.com`;
    for (const e of entries) {
      expect(e).toMatchObject({ actor_type: 'admin', actor: who, target_type: 'webhook', target_id: id, ip: FROM });
    }
    expect(entries[0].details).toEqual({ name: 'CRM' });
    expect(entries[1].details).toEqual({ fields: ['name', 'events'] });
    expect(entries[7].details).toEqual({ grace_s: 3600 });
    expect(entries[8].details).toEqual({ grace_s: 0 });
    expect(entries[9].details).toEqual({ job: recover.json().id, since, missed: true });
    // Each entry at the time it was done (the clock moved a second before each).
    expect(entries.map((e) => Date.parse(e.at))).toEqual(entries.map((_, i) => Date.parse('2026-11-01T09:00:00Z')
      + (i + 1) * 1000));
    const stored = JSON.stringify(await rows());
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_/);
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain(secret.slice(6));
    }
  });

  it('records key changes by the key\'s id, never its key or secret', async () => {
    const created = await call('POST', '/keys', { label: 'Shop', permissions: ['bookings.list'] });
    expect(created.statusCode, created.body).toBe(201);
    const { id, key, secret } = created.json() as { id: string; key: string; secret: string };
    await call('PATCH', `/keys/${id}`, { label: 'Shop 2', rate_limit: 50 });
    await call('POST', `/keys/${key}/disable`); // by key: the log still names the id
    await call('POST', `/keys/${id}/enable`);
    expect((await call('DELETE', `/keys/${key}`)).statusCode).toBe(204);

    const entries = [...(await audit('?target_id=' + id)).items].reverse();
    expect(entries.map((e) => [e.action, e.target_type, e.target_id])).toEqual([
      ['key.created', 'key', id], ['key.updated', 'key', id], ['key.disabled', 'key', id], ['key.enabled', 'key', id],
      ['key.deleted', 'key', id],
    ]);
    expect(entries[0].details).toEqual({ label: 'Shop', permissions: ['bookings.list'] });
    expect(entries[1].details).toEqual({ fields: ['label', 'rate_limit'] });
    const stored = JSON.stringify(await rows());
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(key);
  });

  it('records only what succeeded', async () => {
    const refused = await call('POST', '/webhooks', { name: '', url: 'nope', events: [] });
    expect(refused.statusCode).toBe(400);
    expect((await call('DELETE', '/webhooks/wh_missing')).statusCode).toBe(404);
    expect((await call('PUT', '/settings', { log_retention_days: 0 })).statusCode).toBe(400);
    expect((await call('POST', '/keys', { label: 'x', permissions: ['nothing.list'] })).statusCode).toBe(400);
    expect(await rows()).toEqual([]);
  });

  it('records settings changes by field; a WordPress sign-in is "wordpress", the admin token "admin token"',
    async () => {
      expect((await call('PUT', '/settings', { log_retention_days: 14, audit_retention_days: 90 })).statusCode)
        .toBe(200);
      // The console's form sends every field: saved as it was, it changed nothing, and nothing is recorded.
      const same = { alert_email: '', log_retention_days: 14, audit_retention_days: 90 };
      expect((await call('PUT', '/settings', same)).statusCode).toBe(200);
      // Signed in from WordPress (a sign-in link), then the same change.
      const link = await s.app.inject({ method: 'POST', url: '/host/v1/sign-in-links', headers: HOST_AUTH,
        payload: { email: 'maria@example.com', name: 'Maria', wp_user_id: 7, site_url: 'https://shop.example.com' } });
      expect(link.statusCode, link.body).toBe(201);
      const opened = await s.app.inject({ url: new URL(link.json().url).pathname + new URL(link.json().url).search });
      const cookie = sessionCookieOf(opened.headers['set-cookie']);
      const csrf = (await s.app.inject({ url: '/admin/api/session', headers: { cookie } })).json().csrf_token;
      const fromWordPress = await call('PUT', '/settings', { alert_email: 'ops@example.com' },
        { cookie, 'x-csrf-token': csrf });
      expect(fromWordPress.statusCode).toBe(200);
      const token = { authorization: `Bearer ${await rotateAdminToken(s.wp.core)}` };
      expect((await call('PUT', '/settings', { alert_email: '' }, token)).statusCode).toBe(200);

      const maria = (await s.wp.core.db.selectFrom('admins').select('id').where('email', '=', 'maria@example.com')
        .executeTakeFirstOrThrow()).id;
      const entries = [...(await audit('?action=settings.changed')).items].reverse();
      expect(entries.map((e) => [e.actor_type, e.actor, e.details, e.ip, e.target_type])).toEqual([
        ['admin', `${await adminId()} ops@example.com`, { fields: ['log_retention_days', 'audit_retention_days'] },
          FROM, 'settings'],
        ['wordpress', `${maria} maria@example.com`, { fields: ['alert_email'] }, FROM, 'settings'],
        ['admin', 'admin token', { fields: ['alert_email'] }, FROM, 'settings'],
      ]);
      // Her account, made by the link's first use, is recorded in the link's transaction, from where it was opened.
      const byWordPress = [...(await audit('?actor_type=wordpress')).items].reverse();
      expect(byWordPress.map((e) => [e.action, e.actor, e.ip, e.details])).toEqual([
        ['admin.created', `${maria} maria@example.com`, '127.0.0.1',
          { via: 'WordPress sign-in link', site_url: 'https://shop.example.com', wp_user_id: 7 }],
        ['settings.changed', `${maria} maria@example.com`, FROM, { fields: ['alert_email'] }],
      ]);
      // The setting is in effect.
      expect((await call('GET', '/settings')).json()).toMatchObject({ audit_retention_days: 90 });
    });

  it('names the host token for a request with no admin principal (the host API\'s doors)', () => {
    const req = { ip: '198.51.100.4' } as Parameters<typeof requestActor>[0];
    expect(requestActor(req)).toEqual({ type: 'host', name: 'host token', ip: '198.51.100.4' });
  });

  describe('reading', () => {
    const actors: Actor[] = [
      { type: 'admin', name: 'adm_1 ops@example.com', ip: '10.0.0.1' }, cliActor(),
      { type: 'host', name: 'host token', ip: '10.0.0.2' },
    ];
    /** 30 entries a minute apart: webhook actions on wh_a/wh_b by three actors, a key's, and settings. */
    async function seed(): Promise<void> {
      for (let i = 0; i < 30; i += 1) {
        s.clock.advance(60_000);
        const entry = i % 5 === 4
          ? { action: 'key.updated' as const, targetType: 'key', targetId: 'key_1', details: { fields: ['label'] } }
          : { action: 'webhook.updated' as const, targetType: 'webhook', targetId: i % 2 ? 'wh_a' : 'wh_b' };
        await recordAudit(s.wp.core, actors[i % 3], entry);
      }
    }

    it('pages newest first by cursor, with each filter and a time range', async () => {
      await seed();
      const all: AuditEntryView[] = [];
      let next: string | null = '';
      let pages = 0;
      while (next !== null) {
        const page: AuditPage = await audit(`?perpage=7${next ? `&after=${next}` : ''}`);
        all.push(...page.items);
        next = page.next;
        pages += 1;
      }
      expect(pages).toBe(5);
      expect(all).toHaveLength(30);
      expect(all.map((e) => e.at)).toEqual(all.map((e) => e.at).sort().reverse());
      expect(new Set(all.map((e) => e.id)).size).toBe(30);

      const keys = await audit('?action=key.updated');
      expect(keys.items).toHaveLength(6);
      expect(keys.items.every((e) => e.target_id === 'key_1' && String(e.details?.fields) === 'label')).toBe(true);
      const cli = await audit('?actor_type=cli');
      expect(cli.items).toHaveLength(10);
      expect(cli.items.every((e) => e.actor_type === 'cli' && e.ip === null)).toBe(true);
      expect((await audit('?target_id=wh_a')).items).toHaveLength(12);
      const both = await audit('?target_id=wh_a&actor_type=host');
      expect(both.items.every((e) => e.target_id === 'wh_a' && e.actor_type === 'host')).toBe(true);
      expect(both.items).toHaveLength(4);
      // since and until are inclusive: entries 10 to 19 (minutes 11 to 20 after the start).
      const start = Date.parse('2026-11-01T09:00:00Z');
      const range = await audit(`?since=${new Date(start + 11 * 60_000).toISOString()}`
        + `&until=${new Date(start + 20 * 60_000).toISOString()}`);
      expect(range.items.map((e) => e.at)).toEqual(Array.from({ length: 10 },
        (_, i) => new Date(start + (20 - i) * 60_000).toISOString()));
    });

    it('refuses what is not a filter with a 400 naming it', async () => {
      for (const [query, parameter] of [
        ['?action=webhook.exploded', 'action'], ['?actor_type=robot', 'actor_type'], ['?after=evt_1', 'after'],
        ['?since=yesterday', 'since'], ['?until=2026-13-45', 'until'], ['?perpage=0', 'perpage'],
      ]) {
        const res = await s.app.inject({ url: `/admin/api/audit${query}`, headers: s.session });
        expect(res.statusCode, query).toBe(400);
        expect(JSON.stringify(res.json()), query).toContain(parameter);
      }
      expect((await s.app.inject({ url: '/admin/api/audit' })).statusCode).toBe(401);
    });
  });

  it('is append-only: the database refuses to change an entry', async () => {
    await recordAudit(s.wp.core, cliActor(), { action: 'webhook.deleted', targetType: 'webhook', targetId: 'wh_x' });
    const before = await rows();
    await expect(sql`UPDATE audit_log SET actor = 'someone else'`.execute(s.wp.core.db))
      .rejects.toThrow(/append-only/);
    await expect(s.wp.core.db.updateTable('audit_log').set({ action: 'webhook.created' }).execute())
      .rejects.toThrow(/append-only/);
    expect(await rows()).toEqual(before);
    // No admin API changes or deletes an entry either.
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST'] as const) {
      expect((await s.app.inject({ method, url: '/admin/api/audit', headers: s.session, payload: {} })).statusCode)
        .toBe(404);
    }
  });

  it('prunes entries older than audit_retention_days on the retention tick, in batches', async () => {
    // WAYPOST_AUDIT_RETENTION_DAYS's default until the setting is given.
    expect(await s.wp.core.settings.auditRetentionDays()).toBe(365);
    await call('PUT', '/settings', { audit_retention_days: 30 });
    expect(await s.wp.core.settings.auditRetentionDays()).toBe(30);
    const old = s.clock.now();
    for (let i = 0; i < 1203; i += 1) {
      await recordAudit(s.wp.core, cliActor(), { action: 'key.deleted', targetType: 'key', targetId: `key_${i}` });
    }
    s.clock.advance(20 * DAY);
    await recordAudit(s.wp.core, cliActor(), { action: 'key.deleted', targetType: 'key', targetId: 'key_recent' });
    s.clock.set(old + 30 * DAY + 1000); // the first 1,204 are now older than 30 days, the last 10 days old
    const retention = startRetention(s.wp.core, 3_600_000); // prunes at once, then hourly
    await retention.stop(); // waits for the prune under way
    const left = await rows();
    expect(left.map((r) => r.target_id)).toEqual(['key_recent']);
    expect(await pruneAuditLog(s.wp.core)).toBe(0);
  });
});
