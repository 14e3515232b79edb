// The delivery worker: claims due deliveries (leased), runs them concurrently within the global and per-webhook
// limits, and wakes on a new delivery (the queue's wake-ups) or on the poll timer (due retries, expired leases).
// It only schedules: each delivery's attempt is attempt.ts, its writes the DeliveryQueue's. stop() claims nothing
// more, releases what has not started, lets in-flight attempts finish for a grace period, then aborts and releases
// the rest: nothing is lost, at worst sent twice.
import { setMaxListeners } from 'node:events';
import type { Core } from '../../core.js';
import { newId } from '../../ids.js';
import { isConnectionError } from '../../errors.js';
import { attemptDelivery, sendRequest, type Sender } from './attempt.js';
import { Backlog } from './backlog.js';
import { deliveryQueue, type Claimed, type DeliveryQueue, type Wakeups } from './queue/index.js';
import { SuccessBatch } from './success-batch.js';
import { Throttle, waitUntil } from './throttle.js';
import { deliveryMetrics, type DeliveryMetrics } from './metrics.js';

export class DeliveryWorker {
  readonly id: string;
  private readonly queue: DeliveryQueue;
  private readonly send: Sender;
  private readonly backlog: Backlog;
  private readonly running = new Map<string, Promise<void>>();
  private readonly skipped = new Set<string>(); // webhooks the last claim passed over: refill when they run low
  // Claimed again while its last run was ending (failure written, lease freed): started when that run ends.
  private readonly claimedAgain = new Map<string, Claimed>();
  private readonly abort = new AbortController();
  private readonly stopping = new AbortController(); // ends throttled deliveries' waits for their slots
  private readonly throttle: Throttle;
  private ticking: Promise<void> | null = null;
  private again = false; // woken during a claim: claim once more after it
  private moreDue = false; // the last claim filled every free slot: more may be waiting
  // The webhooks a claim passed over when it found nothing more for the others. Until new work is queued or the poll
  // timer ticks, a claim that passes over (at least) the same webhooks would only scan their backlog and find nothing.
  private othersDrained: Set<string> | null = null;
  private stopped = false;
  private pollTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private claimFailures = 0; // consecutive failed claims
  private wakeups: Wakeups | null = null;
  private readonly onQueued = () => this.wakeForNewWork();
  private readonly successes: SuccessBatch;
  private readonly metrics: DeliveryMetrics;
  private readonly whenIdle: Array<() => void> = []; // drain() waiting for nothing to be in flight

  /** `queue` and `send` are for tests (an in-memory queue, a fake receiver). */
  constructor(private readonly core: Core, options: { queue?: DeliveryQueue; send?: Sender } = {}) {
    this.id = newId('wrk', core.clock.now());
    this.queue = options.queue ?? deliveryQueue(core);
    this.send = options.send ?? sendRequest;
    this.backlog = new Backlog(core.config.perWebhookConcurrency);
    this.successes = new SuccessBatch(core, this.queue, () => this.wakeForNewWork()); // claims a record's next
    this.throttle = new Throttle(this.queue, core.clock);
    this.metrics = deliveryMetrics(core);
    setMaxListeners(0, this.abort.signal); // every in-flight send listens to it
    // Opened now, not on the first claim (SQLite: the writer thread takes about 25 ms to start).
    this.queue.open().catch((err) => core.log.error({ err }, 'could not open the delivery queue'));
  }

  /** Starts waking on new deliveries and polling for due retries. */
  start(): this {
    this.wakeups = this.queue.wakeups(this.onQueued);
    // Not unref'd: a worker-only process has nothing else keeping it alive.
    this.pollTimer = setInterval(() => this.wakeForNewWork(), this.core.config.pollMs);
    this.wake();
    return this;
  }

  /** New deliveries were queued, or time passed (retries may be due): look for the other webhooks' work again. */
  private wakeForNewWork(): void {
    this.othersDrained = null;
    this.wake();
  }

  /** Claims and starts what is due now (coalesced: a wake during a claim runs one more claim after it). */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    // claimLoop handles its own errors; this catch keeps a slip from becoming an unhandled rejection (process end).
    this.ticking = this.claimLoop()
      .catch((err: unknown) => {
        this.core.log.error({ err }, 'delivery claim loop failed; retrying');
        this.retryClaimLater();
      })
      .finally(() => { this.ticking = null; });
  }

  /** Claims again after a short, growing delay: the database may be back by then (a failover takes seconds). */
  private retryClaimLater(): void {
    if (this.stopped || this.retryTimer) return;
    const { claimRetryMs, claimRetryMaxMs } = this.core.config;
    const delay = Math.min(claimRetryMaxMs, claimRetryMs * 2 ** Math.min(this.claimFailures, 10));
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.wakeForNewWork();
    }, delay);
    this.retryTimer.unref(); // the poll timer keeps a running worker alive; this one must not keep a stopped one
  }

  private async claimLoop(): Promise<void> {
    do {
      this.again = false;
      const claimed = await this.claimSome();
      if (claimed === null) return;
      if (this.stopped) {
        await this.releaseLeases(claimed);
        return;
      }
      // One already running whose lease ran out while it ran (taken over) is not started twice.
      for (const c of claimed) {
        if (!this.running.has(c.id)) this.backlog.add(c);
        else if (!c.leaseTakenOver) this.claimedAgain.set(c.id, c);
      }
      this.pump();
      if (this.moreDue) this.again = true;
    } while (this.again && !this.stopped);
  }

  /** One claim for the free slots; null when none is worth making now (or it failed: retried shortly). */
  private async claimSome(): Promise<Claimed[] | null> {
    // Claims run ahead of the senders by up to prefetchRounds - 1 more rounds, so a claim serves many completions:
    // each claim is a write transaction whose fixed cost, over a large backlog, was the largest part of claiming.
    // Deliveries held back by their own webhook's limit do not count, and such webhooks are not claimed for again:
    // a slow webhook keeps at most heldRounds rounds of its own here and cannot starve the others.
    const { deliveryConcurrency: concurrency, prefetchRounds, heldRounds } = this.core.config;
    const startable = this.backlog.startable();
    const free = prefetchRounds * concurrency - this.running.size - startable;
    // Less than a round free while a whole round is ready to start: the completions that woke this claim can wait
    // for the next refill (when less than a round is ready) and go in one larger claim instead of many small ones.
    if (free <= 0 || (free < concurrency && startable >= concurrency)) {
      this.moreDue = true;
      return null;
    }
    const skip = this.backlog.heldAtLeast(heldRounds);
    for (const id of skip) this.skipped.add(id);
    const drained = this.othersDrained;
    if (skip.length > 0 && drained && [...drained].every((id) => skip.includes(id))) {
      this.moreDue = false;
      return null;
    }
    let claimed: Claimed[];
    try {
      const request = { owner: this.id, limit: free, now: this.core.clock.now(), leaseMs: this.core.config.leaseMs };
      claimed = await this.queue.claim({ ...request, skipWebhooks: skip });
    } catch (err) {
      // A lost connection must not stop the worker: it claims again shortly. Rows the failed claim may have leased
      // (committed, answer lost) come back when their leases expire.
      this.claimFailures++;
      const message = 'could not claim deliveries; retrying shortly (any claimed come back when their leases expire)';
      if (isConnectionError(err)) this.core.log.warn({ err, failures: this.claimFailures }, message);
      else this.core.log.error({ err, failures: this.claimFailures }, message);
      this.retryClaimLater();
      return null;
    }
    if (skip.length > 0 && claimed.length < free) this.othersDrained = new Set(skip);
    else if (drained && claimed.some((c) => !drained.has(c.webhookId))) this.othersDrained = null; // work again
    this.claimFailures = 0;
    this.metrics.claimed(this.id, claimed);
    this.moreDue = claimed.length === free;
    return claimed;
  }

  /** Starts waiting deliveries whose webhook is below its concurrency limit, oldest first. */
  private pump(): void {
    while (this.running.size < this.core.config.deliveryConcurrency && !this.stopped) {
      const item = this.backlog.start();
      if (item === undefined) return;
      this.running.set(item.id, this.run(item).finally(() => this.finished(item)));
    }
  }

  private async run(item: Claimed): Promise<void> {
    const { leaseMs, deliveryTimeoutMs, recordMarginMs } = this.core.config;
    try {
      let leaseUntil = item.leaseUntil;
      const perSecond = item.loaded.webhook?.max_per_second ?? null;
      if (perSecond !== null) {
        const until = await this.waitForSlot(item, perSecond);
        if (until === null) return;
        leaseUntil = until;
      }
      // The lease must outlast the attempt (the timeout) and the writing of its result; otherwise a claim could find
      // the delivery due again right after it was sent and before its success was written. A delivery that waited
      // for its webhook's turn long enough to risk its lease renews it first.
      const now = this.core.clock.now();
      if (leaseUntil - now < deliveryTimeoutMs + recordMarginMs) {
        if (!(await this.queue.renew(item.id, this.id, now + leaseMs))) return;
      }
      // Rows loaded long ago are re-read: the webhook may have been disabled meanwhile.
      const waited = this.core.clock.now() - (item.leaseUntil - leaseMs) > leaseMs / 4;
      const { status } = await attemptDelivery(this.core, item.id, {
        owner: this.id, signal: this.abort.signal, loaded: waited ? undefined : item.loaded,
        successes: this.successes, queue: this.queue, send: this.send,
      }); // an ordered one given up or cancelled made its record's next one due (a success: the batch wakes)
      if (item.loaded.delivery.order_key && (status === 'failed' || status === 'cancelled')) this.wakeForNewWork();
    } catch (err) {
      // E.g. the database connection dropped before the result was written: the lease brings it back (at least once).
      const message = 'delivery attempt failed unexpectedly; it will be retried when its lease expires';
      if (isConnectionError(err)) this.core.log.warn({ err, delivery: item.id }, message);
      else this.core.log.error({ err, delivery: item.id }, message);
    }
  }

  /**
   * A throttled delivery waits here for its slot, its lease extended first if the wait would outlast it. Returns the
   * lease's end, or null when it is not to be sent now: the lease was lost, or the worker is stopping (given back).
   */
  private async waitForSlot(item: Claimed, perSecond: number): Promise<number | null> {
    const { deliveryTimeoutMs, recordMarginMs, leaseMs } = this.core.config;
    const at = await this.throttle.slot(item.webhookId, perSecond);
    let leaseUntil = item.leaseUntil;
    if (at + deliveryTimeoutMs + recordMarginMs > leaseUntil) {
      leaseUntil = at + leaseMs;
      if (!(await this.queue.renew(item.id, this.id, leaseUntil))) return null;
    }
    if (await waitUntil(this.core.clock, at, this.stopping.signal)) return leaseUntil;
    await this.queue.release(item.id, this.id); // its slot goes unused: the limit is a maximum
    return null;
  }

  private finished(item: Claimed): void {
    this.running.delete(item.id);
    this.backlog.finish(item.webhookId);
    const again = this.claimedAgain.get(item.id);
    if (again && this.claimedAgain.delete(item.id)) {
      if (this.stopped) void this.releaseLeases([again]);
      else this.backlog.add(again);
    }
    this.pump();
    if (this.inFlight === 0) for (const resolve of this.whenIdle.splice(0)) resolve();
    // Claim again when the prefetched work is down to one round (not after every completion). A webhook the claims
    // passed over is claimed for as soon as it holds less than its cap, while most of its last round still waits:
    // its senders keep going while the claim is out (a 240-row claim takes 10-20 ms on PostgreSQL).
    const { heldRounds, deliveryConcurrency } = this.core.config;
    if (this.skipped.has(item.webhookId) && this.backlog.heldBelow(item.webhookId, heldRounds)) {
      this.skipped.delete(item.webhookId);
      this.wake();
    } else if (this.moreDue && this.backlog.startable() < deliveryConcurrency) {
      this.wake();
    }
  }

  /** Gives claimed deliveries back; if the database is unreachable their leases expire and they are claimed again. */
  private async releaseLeases(claimed: Claimed[]): Promise<void> {
    const results = await Promise.allSettled(claimed.map((c) => this.queue.release(c.id, this.id)));
    const failed = results.filter((r) => r.status === 'rejected');
    if (failed.length > 0) {
      const reason: unknown = failed[0].reason;
      this.core.log.warn({ err: reason, deliveries: failed.length }, 'could not release leases; they expire instead');
    }
  }

  /** Number of deliveries claimed by this worker and not finished. */
  get inFlight(): number {
    return this.running.size + this.backlog.waitingCount;
  }

  /**
   * For tests and one-shot runs: claim and run until nothing is due now and nothing is in flight. While work is in
   * flight the worker claims more by itself, as it does when started; drain only looks again once it is idle.
   */
  async drain(): Promise<void> {
    this.othersDrained = null;
    for (;;) {
      this.wake();
      while (this.ticking) await this.ticking;
      if (this.inFlight === 0) {
        await this.successes.idle();
        if (!this.ticking) return;
        continue;
      }
      await new Promise<void>((resolve) => this.whenIdle.push(resolve));
    }
  }

  async stop(graceMs = Math.min(this.core.config.deliveryTimeoutMs + 500, 8_000)): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.stopping.abort();
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.wakeups?.close();
    if (this.ticking) await this.ticking;
    await this.releaseLeases(this.backlog.clear());
    const inFlight = Promise.all([...this.running.values()]);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      inFlight.then(() => false),
      new Promise<boolean>((r) => { timer = setTimeout(() => r(true), graceMs); }),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      this.abort.abort();
      await inFlight;
    }
    await this.successes.idle();
  }
}
