// `waypost deliveries recover` on thousands of deliveries: a progress line on stderr, `--json` the finished job, and
// a recover killed half-way (no cleanup, like a crash) reads as interrupted once its lease ran out; running it again
// finishes the rest, so every delivery is redelivered exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { getJob, listJobs } from '../../src/webhooks/recover/index.js';
import { seedFailed } from '../webhooks/recover/fixtures.js';
import { killCli, runCliJson, startCli, tempSqliteUrl } from './run.js';

describe('waypost deliveries recover, killed and run again', { timeout: 240_000 }, () => {
  const DATABASE_URL = tempSqliteUrl();
  const env = { DATABASE_URL, WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' };
  let wp: Waypost;
  let later: Waypost; // the same database read 31 s on: a lease not renewed by then has run out
  const n = 40_000;
  const since = new Date(Date.now() - 60_000).toISOString();

  beforeAll(async () => {
    wp = await createWaypost({ env: {}, logger: createLogger('silent'), config: { databaseUrl: DATABASE_URL } });
    later = await createWaypost({ env: {}, logger: createLogger('silent'), config: { databaseUrl: DATABASE_URL },
      clock: { now: () => Date.now() + 31_000 } });
  });
  afterAll(async () => {
    await later?.close();
    await wp?.close();
  });

  it('finishes what a killed recover left, without a duplicate', async () => {
    const hook = await runCliJson(['webhooks', 'create', '--name', 'CRM', '--url', 'http://127.0.0.1:9/in',
      '--events', 'booking.created'], env);
    const seeded = await seedFailed(wp, hook.id, n, since);
    const child = startCli(['deliveries', 'recover', '--webhook', hook.id, '--since', since], env);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
    await expect.poll(async () => (await listJobs(wp.core, hook.id))[0]?.queued ?? 0, { timeout: 60_000, interval: 20 })
      .toBeGreaterThan(0);
    killCli(child);
    await new Promise((resolve) => child.once('close', resolve));
    const [job] = await listJobs(wp.core, hook.id);
    expect(job.status).toBe('running'); // as the dead process left it…
    const dead = await getJob(later.core, hook.id, job.id);
    expect(dead.status).toBe('interrupted'); // …until its lease ran out
    expect(dead.queued).toBeLessThan(n);

    const finished = await runCliJson(['deliveries', 'recover', '--webhook', hook.id, '--since', since], env);
    expect(finished).toMatchObject({ status: 'done', total: n - dead.queued, queued: n - dead.queued });
    const redelivered = await wp.core.db.selectFrom('deliveries').select('redelivery_of')
      .where('redelivery_of', 'is not', null).execute();
    expect(redelivered.map((r) => r.redelivery_of).sort()).toEqual([...seeded].sort());
    expect(stderr).not.toMatch(/error/i);
  });
});
