// What a worker holds: claimed deliveries waiting for a sender, per webhook and oldest first, and per webhook the
// number running and held (running + waiting). Per webhook so that a completion finds the next startable delivery
// by looking at each webhook once, not at every waiting delivery (up to prefetchRounds rounds of them).
import type { Claimed } from './queue/index.js';
import { throttledConcurrency } from './throttle.js';

interface Job extends Claimed {
  /** Claim order: across webhooks, the oldest waiting delivery starts first. */
  order: number;
}

export class Backlog {
  private readonly waiting = new Map<string, Job[]>();
  private readonly byId = new Map<string, Job>();
  private claimOrder = 0;
  private readonly running = new Map<string, number>();
  private readonly held = new Map<string, number>();
  /** Throttled webhooks' own limit (fewer at once: each waits for its slot), as their latest claimed row says. */
  private readonly limits = new Map<string, number>();

  /** `perWebhook`: how many of one webhook's deliveries may run at once. */
  constructor(private readonly perWebhook: number) {}

  get waitingCount(): number {
    return this.byId.size;
  }

  /**
   * Adds a claimed delivery. One already waiting here (its lease ran out while it waited and the claim found it due
   * again) stays where it is, once, with the renewed lease.
   */
  add(c: Claimed): void {
    const already = this.byId.get(c.id);
    if (already) {
      already.leaseUntil = c.leaseUntil;
      return;
    }
    const perSecond = c.loaded?.webhook?.max_per_second ?? null;
    if (perSecond !== null) this.limits.set(c.webhookId, throttledConcurrency(perSecond, this.perWebhook));
    else if (this.limits.size > 0) this.limits.delete(c.webhookId);
    const job: Job = {
      id: c.id, webhookId: c.webhookId, leaseUntil: c.leaseUntil, leaseTakenOver: c.leaseTakenOver, loaded: c.loaded,
      order: this.claimOrder++,
    };
    const queue = this.waiting.get(c.webhookId);
    if (queue) queue.push(job);
    else this.waiting.set(c.webhookId, [job]);
    this.byId.set(c.id, job);
    this.held.set(c.webhookId, (this.held.get(c.webhookId) ?? 0) + 1);
  }

  /** Waiting deliveries whose webhook has a free slot. */
  startable(): number {
    let n = 0;
    for (const [webhookId, queue] of this.waiting) {
      n += Math.min(queue.length, Math.max(0, this.limit(webhookId) - (this.running.get(webhookId) ?? 0)));
    }
    return n;
  }

  /** Webhooks holding at least `rounds` of their limit: claims pass over them. */
  heldAtLeast(rounds: number): string[] {
    return [...this.held].filter(([id, n]) => n >= rounds * this.limit(id)).map(([id]) => id);
  }

  /** Whether the webhook holds less than `rounds` of its limit (claims may take more of it again). */
  heldBelow(webhookId: string, rounds: number): boolean {
    return (this.held.get(webhookId) ?? 0) < rounds * this.limit(webhookId);
  }

  private limit(webhookId: string): number {
    if (this.limits.size === 0) return this.perWebhook; // no throttled webhook here: no lookup
    return this.limits.get(webhookId) ?? this.perWebhook;
  }

  /** Takes the oldest waiting delivery whose webhook is below its limit, counted as running; undefined if none. */
  start(): Claimed | undefined {
    let next: Job[] | undefined;
    for (const [webhookId, queue] of this.waiting) {
      const older = next === undefined || queue[0].order < next[0].order;
      if (older && (this.running.get(webhookId) ?? 0) < this.limit(webhookId)) next = queue;
    }
    if (next === undefined) return undefined;
    const job = next.shift()!;
    if (next.length === 0) this.waiting.delete(job.webhookId);
    this.byId.delete(job.id);
    this.running.set(job.webhookId, (this.running.get(job.webhookId) ?? 0) + 1);
    return job;
  }

  /** A started delivery finished. */
  finish(webhookId: string): void {
    decrement(this.running, webhookId);
    decrement(this.held, webhookId);
    if (!this.held.has(webhookId)) this.limits.delete(webhookId);
  }

  /** Empties the waiting queues (shutdown): what was waiting, to give back. */
  clear(): Claimed[] {
    const jobs = [...this.waiting.values()].flat();
    for (const job of jobs) decrement(this.held, job.webhookId);
    this.waiting.clear();
    this.byId.clear();
    return jobs;
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 1) - 1;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
