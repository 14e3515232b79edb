// The SQLite writer thread belongs to the delivery worker: an API or CLI process that only sends an explicit attempt
// ("Send test", `deliveries retry`) writes on its main connection and starts no thread; a worker starts it.
import { afterEach, describe, expect, it } from 'vitest';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { sendTestEvent } from '../../../src/webhooks/test-send.js';
import { startWorker } from '../../../src/webhooks/index.js';
import { startReceiver, type Receiver } from './receiver.js';
import { addWebhook } from './fixtures.js';

const threadStarted = (wp: Waypost) => (wp.core.store.writer as unknown as { worker: unknown }).worker !== null;

describe('the SQLite writer thread', () => {
  let wp: Waypost;
  let receiver: Receiver;
  afterEach(async () => {
    await wp.close();
    await receiver.close();
  });

  it('is not started by an explicit attempt, and is started by the worker', async () => {
    receiver = await startReceiver();
    wp = await testWaypost({ dialect: 'sqlite', config: { pollMs: 3_600_000 } });
    const hook = await addWebhook(wp.core, receiver.url);
    expect(wp.core.store.writer).toBeDefined();
    const sent = await sendTestEvent(wp.core, hook.id);
    expect(sent.success).toBe(true);
    const row = await wp.core.db.selectFrom('deliveries').selectAll().where('id', '=', sent.delivery_id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('succeeded');
    expect(threadStarted(wp)).toBe(false);
    const worker = await startWorker(wp.core);
    await expect.poll(() => threadStarted(wp)).toBe(true);
    await worker.stop();
  });
});
