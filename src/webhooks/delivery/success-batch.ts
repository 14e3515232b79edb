// Group commit for successful attempts: the worker's successes that finish close together are written in one
// transaction (attempt rows + delivery updates) instead of one each, and the sender's slot is free as soon as
// the receiver has answered. Until written, the delivery keeps its lease; a write cut off by a lost connection is
// tried again (a few times, while the lease holds); if it still fails or the process dies first, the delivery is
// sent again after the lease expires (at-least-once, same X-Waypost-Delivery).
import type { Core } from '../../core.js';
import { isConnectionError } from '../../errors.js';
import type { DeliveryAttemptRow } from '../tables.js';
import type { SuccessSink } from './attempt.js';
import type { DeliveryQueue, SuccessItem } from './queue/index.js';
import type { Chain } from './order.js';

export class SuccessBatch implements SuccessSink {
  private readonly pending: SuccessItem[] = [];
  private flushing: Promise<void> | null = null;

  /** `released`: called after a batch with ordered deliveries is written (their records' next ones are due now). */
  constructor(
    private readonly core: Core, private readonly queue: DeliveryQueue, private readonly released = () => {},
  ) {}

  /** Queues the success; it is written within a few milliseconds (the receiver already has it). */
  record(attempt: DeliveryAttemptRow, now: string, webhookId: string, chain?: Chain): void {
    this.pending.push(chain ? { attempt, now, webhookId, chain } : { attempt, now, webhookId });
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
        await this.write(batch);
        if (batch.some((i) => i.chain)) this.released();
      } catch (err) {
        const message = 'could not record successful deliveries; they will be sent again when their leases expire';
        this.core.log.error({ err, deliveries: batch.length }, message);
      }
    }
    this.flushing = null;
  }

  /**
   * Writes a batch, again after a lost connection (a database restart or failover; otherwise every success of the
   * batch would be sent twice). A retry that fails otherwise may have been refused because the lost commit went
   * through after all (the attempt rows exist): then it is done.
   */
  private async write(batch: SuccessItem[]): Promise<void> {
    const { claimRetryMs, claimRetryMaxMs } = this.core.config;
    for (let tries = 1; ; tries++) {
      try {
        await this.queue.recordSuccesses(batch);
        return;
      } catch (err) {
        if (tries > 1 && !isConnectionError(err) && (await this.queue.attemptsRecorded(batch))) return;
        if (!isConnectionError(err) || tries >= SUCCESS_WRITE_TRIES) throw err;
        this.core.log.warn({ err, deliveries: batch.length, tries }, 'could not record successes; trying again');
        await new Promise((r) => setTimeout(r, Math.min(claimRetryMaxMs, claimRetryMs * 2 ** (tries - 1))));
      }
    }
  }
}

/** Writes of one batch before its deliveries are left to their leases (100, 200, 400, 800 ms apart by default). */
const SUCCESS_WRITE_TRIES = 5;
