// End to end: the real `waypost` CLI (tsx src/cli/main.ts) against a temporary SQLite database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWaypost, type Waypost } from '../../../src/sdk.js';
import { createLogger } from '../../../src/log.js';
import { verifySignature } from '../../../src/webhooks/sign.js';
import { runCli, runCliJson, tempSqliteUrl } from '../../cli/run.js';
import { startReceiver, type Receiver } from './fixtures.js';

// Each run starts a process (a few seconds on a busy machine), so the tests get generous time limits.
describe('webhooks, deliveries and alerts CLI', { timeout: 180_000 }, () => {
  const databaseUrl = tempSqliteUrl();
  const env = { DATABASE_URL: databaseUrl, WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' };
  let receiver: Receiver;

  const waypost = (...args: string[]) => runCli(args, env);
  const json = (...args: string[]) => runCliJson(args, env);

  beforeAll(async () => {
    receiver = await startReceiver({ status: 200, body: 'thanks' });
  });
  afterAll(async () => receiver.close());

  let hookId = '';
  let secret = '';

  it('creates a webhook and prints it with its secret', async () => {
    const created = await json('webhooks', 'create', '--name', 'CRM sync', '--url', receiver.url, '--events',
      'booking.created, enquiry.created');
    expect(created).toMatchObject({ name: 'CRM sync', url: receiver.url, events: ['booking.created', 'enquiry.created'],
      active: true });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.warning).toContain('http://');
    hookId = created.id;
    secret = created.secret;

    const human = await waypost('webhooks', 'create', '--name', 'Paused', '--url', 'https://example.com/in', '--events',
      'review.created', '--inactive');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/secret:\s+whsec_/);
    expect(human.stdout).toMatch(/state:\s+disabled/);
  });

  it('explains bad input in one line and exits non-zero', async () => {
    const bad = await waypost('webhooks', 'create', '--name', 'X', '--url', receiver.url, '--events',
      'booking.deleted');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('events');
    expect(bad.stderr).toContain('booking.deleted');
    const badUrl = await waypost('webhooks', 'create', '--name', 'X', '--url', 'nope', '--events', 'booking.created');
    expect(badUrl.code).not.toBe(0);
    expect(badUrl.stderr).toContain('not a valid absolute URL');
    const missing = await waypost('webhooks', 'enable', 'wh_missing');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('wh_missing was not found');
  });

  it('lists webhooks as an aligned table and as JSON without secrets', async () => {
    const table = await waypost('webhooks', 'list');
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+STATE\s+EVENTS/);
    expect(lines).toHaveLength(3);
    const col = lines[0].indexOf('STATE');
    expect(lines.slice(1).map((l) => l.slice(col).split(/\s+/)[0]).sort()).toEqual(['active', 'disabled']);
    expect(table.stdout).not.toContain('whsec_');
    const list = await json('webhooks', 'list');
    expect(list.map((w: { name: string }) => w.name)).toEqual(['CRM sync', 'Paused']);
    expect(JSON.stringify(list)).not.toContain('whsec_');
  });

  it('reveals and rotates the secret', async () => {
    const shown = await waypost('webhooks', 'secret', hookId);
    expect(shown.stdout.trim()).toBe(secret);
    const rotated = await json('webhooks', 'secret', hookId, '--rotate');
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(secret);
    secret = rotated.secret;
  });

  it('"webhooks test" sends a signed sample to the receiver and prints its answer', async () => {
    const run = await waypost('webhooks', 'test', hookId);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/result:\s+success/);
    expect(run.stdout).toMatch(/status:\s+200/);
    expect(run.stdout).toContain('thanks');
    const got = receiver.received.at(-1)!;
    expect(JSON.parse(got.body).type).toBe('booking.created');
    expect(verifySignature(got.body, String(got.headers['x-waypost-signature']), secret)).toBe(true);

    receiver.answer = { status: 500, body: 'receiver exploded' };
    const failed = await waypost('webhooks', 'test', hookId, '--event', 'enquiry.created', '--json');
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout))
      .toMatchObject({ success: false, event_type: 'enquiry.created',
      response: { status: 500, body: 'receiver exploded' } });
    receiver.answer = { status: 200, body: 'thanks' };
  });

  it('lists, shows and redelivers deliveries', async () => {
    const all = await json('deliveries', 'list', '--webhook', hookId);
    expect(all.total).toBe(2);
    expect(all.items.map((d: { event_type: string; status: string; test: boolean }) => [d.event_type, d.status,
      d.test])).toEqual([['enquiry.created', 'failed', true], ['booking.created', 'succeeded', true]]);
    const failed = await json('deliveries', 'list', '--status', 'failed');
    expect(failed.items).toHaveLength(1);
    const limited = await json('deliveries', 'list', '--limit', '1');
    expect(limited).toMatchObject({ total: 2, perpage: 1 });
    expect(limited.items).toHaveLength(1);

    const table = await waypost('deliveries', 'list');
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+CREATED\s+WEBHOOK\s+EVENT\s+STATUS\s+HTTP/);
    expect(table.stdout).toContain('CRM sync');
    expect(table.stdout).toContain('enquiry.created (test)');
    const badLimit = await waypost('deliveries', 'list', '--limit', '500');
    expect(badLimit.code).not.toBe(0);
    expect(badLimit.stderr).toContain('--limit');
    const badStatus = await waypost('deliveries', 'list', '--status', 'exploded');
    expect(badStatus.code).not.toBe(0);
    expect(badStatus.stderr).toContain('exploded');

    const failedId = failed.items[0].id;
    const shown = await waypost('deliveries', 'show', failedId);
    expect(shown.stdout).toMatch(/status:\s+failed/);
    expect(shown.stdout).toContain('HTTP 500');
    expect(shown.stdout).toContain('receiver exploded');
    const detail = await json('deliveries', 'show', failedId);
    expect(detail.attempts[0]).toMatchObject({ attempt: 1, success: false, response: { status: 500 } });

    const again = await json('deliveries', 'redeliver', failedId);
    expect(again).toMatchObject({ redelivery_of: failedId, event_id: failed.items[0].event_id, status: 'pending' });
  });

  it('disable cancels pending deliveries and blocks redeliver; enable and delete keep the log', async () => {
    const disabled = await waypost('webhooks', 'disable', hookId);
    expect(disabled.stdout).toContain('disabled');
    const cancelled = await json('deliveries', 'list', '--status', 'cancelled');
    expect(cancelled.items).toHaveLength(1);
    const refused = await waypost('deliveries', 'redeliver', cancelled.items[0].id);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Re-enable it first/);

    expect((await json('webhooks', 'enable', hookId))).toMatchObject({ active: true, disabled_reason: null });
    expect((await waypost('deliveries', 'redeliver', cancelled.items[0].id)).code).toBe(0);
    expect((await json('webhooks', 'delete', hookId))).toEqual({ id: hookId, deleted: true });
    expect((await json('webhooks', 'list')).map((w: { id: string }) => w.id)).not.toContain(hookId);
    expect((await json('deliveries', 'list', '--webhook', hookId)).total).toBe(4);
  });

  it('lists alerts', async () => {
    expect((await waypost('alerts', 'list')).stdout.trim()).toBe('No alerts.');
    const wp: Waypost = await createWaypost({ env: {}, logger: createLogger('silent'), config: { databaseUrl } });
    try {
      const hook = (await wp.core.db.selectFrom('webhooks').select('id').executeTakeFirstOrThrow()).id;
      await wp.core.db.insertInto('alerts')
        .values({ id: 'alt_cli', webhook_id: hook, delivery_id: null, level: 'critical', recipient: 'ops@example.com',
        subject: 'Webhook disabled after 5 failures', body: '…', status: 'stored', error: null, created_at: new Date()
        .toISOString() }).execute();
    } finally {
      await wp.close();
    }
    const table = await waypost('alerts', 'list');
    expect(table.stdout).toMatch(/^ID\s+CREATED\s+LEVEL\s+STATUS/);
    expect(table.stdout).toMatch(/alt_cli .*critical\s+stored .*ops@example\.com\s+Webhook disabled after 5 failures/);
    expect((await json('alerts', 'list')).total).toBe(1);
  });

  it('--payload minimal: shown by "webhooks show", and "webhooks test" sends the minimal sample', async () => {
    const created = await json('webhooks', 'create', '--name', 'Lean', '--url', receiver.url, '--events',
      'booking.created', '--payload', 'minimal');
    expect(created.payload).toBe('minimal');
    const shown = await waypost('webhooks', 'show', created.id);
    expect(shown.stdout).toMatch(/^payload: +minimal \(record ids and API link, no personal fields\)$/m);
    const bad = await waypost('webhooks', 'update', created.id, '--payload', 'tiny');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('error: option \'--payload <kind>\' argument \'tiny\' is invalid. Give "full" or '
      + '"minimal".');

    expect((await waypost('webhooks', 'test', created.id)).code).toBe(0);
    const body = receiver.received.at(-1)!.body;
    expect(JSON.parse(body).data).toMatchObject({ resource: 'bookings', id: 900001, customer_id: 900101 });
    expect(body).not.toContain('ana.silva@example.com');
    expect((await json('webhooks', 'update', created.id, '--payload', 'full')).payload).toBe('full');
  });
});
