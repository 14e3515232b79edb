// `waypost privacy erase|export|erasures`: the same erasure and export as the APIs, with progress on stderr and the
// result on stdout (a summary, or --json), recorded as asked by the CLI and the OS user who ran it.
import { userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createWaypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { runCli, runCliJson, tempSqliteUrl } from '../cli/run.js';
import { addWebhook } from '../webhooks/engine/fixtures.js';

const EMAIL = 'ines.duarte@example.pt';

describe('waypost privacy', () => {
  it('exports a person, erases them with progress and a summary, and lists the erasure', async () => {
    const url = tempSqliteUrl();
    const wp = await createWaypost({ logger: createLogger('silent'), env: {}, config: { databaseUrl: url } });
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook', { name: 'Accounting' });
    await wp.put('customers', 5, { email: EMAIL, first_name: 'Ines', last_name: 'Duarte' });
    await wp.put('bookings', 6, { status: 'booked', currency: 'EUR', total_amount: '10.00',
      customer: { id: 5, email: EMAIL }, engine_version: '6.8.0', cart_version: '4.1' });
    // One attempt made (it failed: nothing listens there), so the webhook counts as having received the data.
    await wp.core.db.updateTable('deliveries').set({ attempts: 1 }).execute();
    await wp.close();
    const env = { DATABASE_URL: url };

    const exported = await runCli(['privacy', 'export', '--email', EMAIL], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout).records.bookings).toMatchObject([{ id: 6, customer: { email: EMAIL } }]);

    const erased = await runCli(['privacy', 'erase', '--email', EMAIL], env);
    expect(erased.code, erased.stderr).toBe(0);
    expect(erased.stderr).toContain('erasing: erasing stored events');
    expect(erased.stdout).toMatch(/Erasure ers_\w+: succeeded/);
    expect(erased.stdout).toContain('customers 1, bookings 1');
    expect(erased.stdout).toContain('Accounting <http://127.0.0.1:9/hook> (2 deliveries)');

    const again = await runCliJson(['privacy', 'erase', '--customer-id', '5'], env);
    expect(again).toMatchObject({ status: 'succeeded', counts: { customers: 0, bookings: 0 }, requested_by: 'cli' });

    const { items } = await runCliJson(['privacy', 'erasures'], env);
    expect(items).toHaveLength(2);
    expect(items[1]).toMatchObject({ requested_by: 'cli', requester: userInfo().username, counts: { customers: 1 } });
    expect(JSON.stringify(items)).not.toContain(EMAIL);

    const bad = await runCli(['privacy', 'erase'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('email');
  });
});
