// Webhooks capability wiring: the write listener (events + deliveries in the write's transaction), the after-commit
// wake-up, and the delivery worker (started by `waypost serve` with role all or worker).
import type { Core } from '../core.js';
import { closeMailer } from '../alerts/mailer.js';
import { recordEventsForChange } from './events.js';
import { wakeWorkers } from './outbox.js';
import { closeTargetAgent } from './send.js';
import { readPrivateTargets, watchPrivateTargets } from './private-targets.js';
import { DeliveryWorker } from './delivery/worker.js';
import { startRetention } from './retention.js';
import { stopRecovers } from './recover/index.js';
import { deliveryMetrics } from './delivery/metrics.js';

/** Registers the write listener that records events and queues deliveries (transactional outbox). */
export function installWebhooks(core: Core): void {
  core.writeListeners.push(async (trx, change, c) => {
    await recordEventsForChange(trx, change, c);
  });
  // The write path announces every commit; a write that queued nothing costs the worker one empty claim.
  core.bus.on('records.changed', () => wakeWorkers(core));
  deliveryMetrics(core); // every process's /metrics has the queue's depth and oldest due age
  watchPrivateTargets(core); // sends follow the stored setting, whichever process changes it
}

export interface Worker {
  stop(): Promise<void>;
}

/** Starts the delivery worker and, beside it, the hourly delivery-log pruning (retention). */
export async function startWorker(core: Core): Promise<Worker> {
  await readPrivateTargets(core); // its first sends already follow the stored setting
  const worker = new DeliveryWorker(core).start();
  const retention = startRetention(core);
  core.log.info({ worker: worker.id, concurrency: core.config.deliveryConcurrency }, 'delivery worker started');
  return {
    async stop() {
      await retention.stop();
      await worker.stop();
    },
  };
}

/** Stops running recovers (marked interrupted) and closes the pooled HTTP client and mail transport (an idle
 *  keep-alive socket would keep a CLI process alive). */
export async function closeWebhooks(core: Core): Promise<void> {
  await stopRecovers(core);
  await closeTargetAgent(core.config);
  closeMailer(core.config);
}

export { DeliveryWorker };
