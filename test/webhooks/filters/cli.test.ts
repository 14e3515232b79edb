// `waypost webhooks create|update --filter '<json>'`, `show` with the filter's preview, and `preview-filter`: the
// real CLI against a temporary SQLite database.
import { describe, expect, it } from 'vitest';
import { createWaypost } from '../../../src/sdk.js';
import { createLogger } from '../../../src/log.js';
import { booking } from '../engine/fixtures.js';
import { runCli, runCliJson, tempSqliteUrl } from '../../cli/run.js';

describe('payload filters from the CLI', { timeout: 180_000 }, () => {
  const env = { DATABASE_URL: tempSqliteUrl(), WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' };

  it('creates, shows, previews and clears a filter; bad JSON and unknown fields fail naming the part', async () => {
    const eur = '{"field":"data.currency","eq":"EUR"}';
    const hook = await runCliJson(['webhooks', 'create', '--name', 'EUR', '--url', 'https://crm.example.com/in',
      '--events', 'booking.created', '--filter', eur], env);
    expect(hook.filter).toEqual({ field: 'data.currency', eq: 'EUR' });

    const wp = await createWaypost({ env: {}, logger: createLogger('silent'),
      config: { databaseUrl: env.DATABASE_URL } });
    for (let id = 1; id <= 4; id++) await wp.put('bookings', id, booking({ currency: id === 4 ? 'USD' : 'EUR' }));
    await wp.close();

    const preview = await runCli(['webhooks', 'preview-filter', hook.id], env);
    expect(preview.stdout).toContain('Would have sent 3 of the last 4 events (booking.created).');
    const gbp = await runCli(['webhooks', 'update', hook.id, '--filter', '{"field":"data.currency","eq":"GBP"}'], env);
    expect(gbp.stdout).toMatch(/filter preview:\s+matched none of the last 4 events when saved/);

    const unknown = await runCli(['webhooks', 'update', hook.id, '--filter', '{"field":"data.curency","eq":"EUR"}'],
      env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('filter.field: unknown field "data.curency"');
    const notJson = await runCli(['webhooks', 'update', hook.id, '--filter', '{field: data.currency}'], env);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toContain('not JSON');
    const cleared = await runCliJson(['webhooks', 'update', hook.id, '--filter', 'none'], env);
    expect(cleared.filter).toBeNull();
  });
});
