// Group commit for successful attempts: the worker's successes that finish close together are written in one
// transaction (attempt rows + delivery updates) instead of one each, and the sender's slot is free as soon as
// the receiver has answered. Until written, the delivery keeps its lease; if the write fails or the process
// dies first, the delivery is sent again after the lease expires (at-least-once, same X-Waypost-Delivery).
import type { Core } from '../../core.js';
import type { DeliveryAttemptRow } from '../tables.js';
import type { SuccessSink } from './attempt.js';
import type { DeliveryQueue, SuccessItem } from './queue/index.js';

export class SuccessBatch implements SuccessSink {
  private readonly pending: SuccessItem[] = [];
  private flushing: Promise<void> | null = null;

  constructor(private readonly core: Core, private readonly queue: DeliveryQueue) {}

  /** Queues the success; it is written within a few milliseconds (the receiver already has it). */
  record(attempt: DeliveryAttemptRow, now: string): void {
    this.pending.push({ attempt, now });
    this.flushing ??= this.flush();
  }

  /** Resolves when everything queued so far is written (or has failed and been logged). */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flush(): Promise<void> {
    // A batch smaller than gatherBelow waits up to gatherMs for more: one commit then serves many successes.
    const { successBatchMax, gatherBelow, gatherMs } = this.core.config;
    while (this.pending.length > 0) {
      // Every batch gathers (not only the first): while one is being written the next fills, and written at once it
      // would be a small one; with a single busy webhook most batches were (17 successes on average, measured).
      await new Promise((r) => setImmediate(r)); // let the successes of this turn of the event loop join
      if (this.pending.length < gatherBelow) await new Promise((r) => setTimeout(r, gatherMs));
      const batch = this.pending.splice(0, successBatchMax);
      try {
        await this.queue.recordSuccesses(batch);
      } catch (err) {
        const message = 'could not record successful deliveries; they will be sent again when their leases expire';
        this.core.log.error({ err, deliveries: batch.length }, message);
      }
    }
    this.flushing = null;
  }
}
