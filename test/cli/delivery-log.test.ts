// The console Logs tab's search and the recover feature, from the CLI: which record a delivery concerns, finding
// deliveries by record, event or delivery id, and redelivering (once) what was cancelled while a webhook was off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { runCli, runCliJson, tempSqliteUrl } from './run.js';

describe('waypost deliveries: search and recover', { timeout: 240_000 }, () => {
  const DATABASE_URL = tempSqliteUrl();
  const env = { DATABASE_URL, WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' };
  let wp: Waypost; // the booking product's writes, through the SDK (no worker runs: deliveries stay pending)
  const json = (...args: string[]) => runCliJson(args, env);
  let hookId = '';
  let start = '';

  beforeAll(async () => {
    wp = await createWaypost({ env: {}, logger: createLogger('silent'), config: { databaseUrl: DATABASE_URL } });
    const created = await json('webhooks', 'create', '--name', 'CRM', '--url', 'http://127.0.0.1:9/in', '--events',
      'all');
    hookId = created.id;
    start = new Date(Date.now() - 1000).toISOString();
    await wp.put('customers', 1042, { email: 'ana@example.com', first_name: 'Ana', last_name: 'Silva' });
    await wp.put('customers', 7, { email: 'bo@example.com', first_name: 'Bo', last_name: 'Ek' });
  });
  afterAll(async () => wp?.close());

  it('says which record each delivery concerns, and finds deliveries by record, event or delivery id', async () => {
    const table = await runCli(['deliveries', 'list'], env);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID +CREATED +WEBHOOK +EVENT +STATUS +HTTP +ATTEMPTS +RECORD +NOTE$/);
    expect(table.stdout).toMatch(/ customer\.created +pending +- +0 +customer 1042 /);

    const [byRecord, byResource, otherResource] = await Promise.all([
      json('deliveries', 'list', '--record', '1042'),
      json('deliveries', 'list', '--record', '7', '--resource', 'customers'),
      json('deliveries', 'list', '--record', '7', '--resource', 'bookings'),
    ]);
    expect(byRecord.items.map((d: { record_id: number }) => d.record_id)).toEqual([1042]);
    expect(byResource.items).toHaveLength(1);
    expect(otherResource.total).toBe(0);
    const [one] = byRecord.items;
    const [byEvent, byDelivery] = await Promise.all([
      json('deliveries', 'list', '--event-id', one.event_id),
      json('deliveries', 'list', '--delivery', one.id),
    ]);
    expect([byEvent.items[0].id, byDelivery.items[0].id]).toEqual([one.id, one.id]);
    expect((await runCli(['deliveries', 'show', one.id], env)).stdout).toMatch(/^record: +customer 1042$/m);
  });

  it('finds a traveller\'s deliveries by e-mail or name, and ids in the same option', async () => {
    const [byEmail, byName, byId, nobody] = await Promise.all([
      json('deliveries', 'list', '--search', 'BO@example.com'), json('deliveries', 'list', '--search', 'Silva'),
      json('deliveries', 'list', '--search', 'customer 7'), json('deliveries', 'list', '--search', 'zoe@example.com'),
    ]);
    expect(byEmail.items.map((d: { record_id: number }) => d.record_id)).toEqual([7]);
    expect(byName.items.map((d: { record_id: number }) => d.record_id)).toEqual([1042]);
    expect(byId.items.map((d: { record_id: number }) => d.record_id)).toEqual([7]);
    expect(nobody.total).toBe(0);
    const table = await runCli(['deliveries', 'list', '--search', 'ana@example.com'], env);
    expect(table.stdout).toMatch(/ customer\.created +pending +- +0 +customer 1042 /);
    expect(table.stdout).not.toContain('customer 7 ');
    const short = await runCli(['deliveries', 'list', '--search', 'ek'], env);
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/^waypost: q: search for an e-mail, name or trip of 3 to 200 characters/);
  });

  it('recovers what a disable cancelled, once, after the webhook is enabled again', async () => {
    expect((await runCli(['webhooks', 'disable', hookId], env)).code).toBe(0);
    expect((await json('deliveries', 'list', '--status', 'cancelled')).total).toBe(2);
    const refused = await runCli(['deliveries', 'recover', '--webhook', hookId, '--since', start], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr)
      .toBe('waypost: The webhook "CRM" is disabled. Re-enable it first, then recover its deliveries.\n');

    expect((await runCli(['webhooks', 'enable', hookId], env)).code).toBe(0);
    const recovered = await runCli(['deliveries', 'recover', '--webhook', hookId, '--since', start], env);
    expect(recovered.code, recovered.stderr).toBe(0);
    expect(recovered.stdout).toMatch(new RegExp(`^Queued 2 redeliveries for ${hookId} \\(rcv_\\w+, done\\)\\. `
      + 'A running worker sends them now.\n$'));
    // The progress line goes to stderr (a plain line in a pipe), so stdout stays the result.
    expect(recovered.stderr).toMatch(/^Recovering rcv_\w+: 100\.0%, 2 deliveries, [\d,]+ deliveries\/s\n$/);
    const pending = await json('deliveries', 'list', '--status', 'pending');
    const records = pending.items.map((d: { record_id: number }) => d.record_id) as number[];
    expect(records.sort((a, b) => a - b)).toEqual([7, 1042]);
    const again = await runCli(['deliveries', 'recover', '--webhook', hookId, '--since', start, '--json'], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'done', total: 0, queued: 0, webhook_id: hookId });
    expect(again.stderr).toBe(''); // nothing to recover: no progress line
    const bad = await runCli(['deliveries', 'recover', '--webhook', hookId, '--since', 'last week'], env);
    expect(bad.stderr).toBe('waypost: since: give an ISO 8601 time, e.g. 2026-01-31T00:00:00Z\n');
  });

  it('says what a re-enabled webhook missed and the command that sends it, once', async () => {
    expect((await runCli(['webhooks', 'disable', hookId], env)).code).toBe(0);
    await wp.put('bookings', 7001, { status: 'booked', currency: 'EUR', total_amount: '10.00', paid_amount: '0.00',
      customer: { email: 'ana@example.com' }, trips: [], engine_version: '6.8.0', cart_version: '4.1' });
    expect((await json('deliveries', 'list', '--record', '7001')).total).toBe(0);
    const enabled = await runCli(['webhooks', 'enable', hookId], env);
    expect(enabled.code, enabled.stderr).toBe(0);
    const lines = enabled.stdout.split('\n');
    expect(lines[0]).toBe(`Webhook ${hookId} (CRM) enabled.`);
    expect(lines[1]).toMatch(/^1 event happened while it was off \(\S+ to \S+\) and was not sent\.$/);
    const command = /once: waypost (deliveries recover --webhook \S+ --since \S+)$/.exec(lines[2]);
    expect(command, enabled.stdout).not.toBeNull();
    const recovered = await runCli(command![1].split(' '), env);
    expect(recovered.stdout).toMatch(new RegExp(`^Queued 1 missed event \\(while disabled\\) for ${hookId} `));
    const listed = await json('deliveries', 'list', '--record', '7001');
    expect(listed.items.map((d: { event_type: string }) => d.event_type)).toEqual(['booking.created']);
    const again = await runCli([...command![1].split(' '), '--json'], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ total: 0, queued: 0, missed_total: 0 });
  });
});
