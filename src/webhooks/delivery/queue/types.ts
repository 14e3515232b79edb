// The seam between the delivery worker and the database: one interface, one implementation per backend in this
// folder (sqlite.ts, postgres.ts). Nothing outside it (and src/store/) asks which database Waypost runs on.
import type { DeliveryAttemptRow, DeliveryRow, DeliveryStatus, EventRow, WebhookRow } from '../../tables.js';
import type { Chain } from '../order.js';

export interface LoadedDelivery {
  delivery: DeliveryRow;
  webhook: WebhookRow | undefined;
  event: EventRow | undefined;
}

export interface Claimed {
  id: string;
  webhookId: string;
  leaseUntil: number;
  /** Its lease had run out (the worker that held it crashed or lost it): counted as a lease expiry. */
  leaseTakenOver: boolean;
  /** The delivery as the claim left it, with its webhook and event, read in the claim (no second query). */
  loaded: LoadedDelivery;
}

export interface ClaimRequest {
  owner: string;
  limit: number;
  now: number;
  leaseMs: number;
  /** Webhooks this worker already holds enough of (so one slow webhook cannot starve the others). */
  skipWebhooks: readonly string[];
}

export interface SuccessItem {
  attempt: DeliveryAttemptRow;
  now: string;
  /** The delivery's webhook: its chart counters are added in the same write (src/webhooks/stats/). */
  webhookId: string;
  /** An ordered delivery's chain (delivery/order.ts): its success makes the next one due. */
  chain?: Chain;
}

/** A failed attempt and what it leads to: another try at `nextAttemptAt`, or the end (`failed`). */
export interface FailureRecord {
  attempt: DeliveryAttemptRow;
  /** The delivery's webhook, whose chart counters the failure adds to in its transaction. */
  webhookId: string;
  status: 'pending' | 'failed';
  nextAttemptAt: number | null;
  now: string;
  /** Set when the failure disables the webhook (exhausted): written in the same transaction. */
  disable: { webhookId: string; reason: string } | null;
  /** An ordered delivery's chain: given up (failed), it makes the next one due. */
  chain?: Chain;
}

/** The delivery after a failure was written: a delivery cancelled while in flight stays cancelled. */
export interface FailureWritten {
  status: DeliveryStatus;
  cancelReason: string | null;
}

export interface Wakeups {
  close(): Promise<void>;
}

export interface DeliveryQueue {
  /** Readies the queue for a worker (SQLite: starts the writer thread). API and CLI processes never call it. */
  open(): Promise<void>;
  /** Leases up to `limit` due deliveries to `owner`, atomically, with their webhooks and events. */
  claim(request: ClaimRequest): Promise<Claimed[]>;
  /** Deliveries with their webhooks and events (re-read before an attempt that waited long). */
  load(ids: readonly string[]): Promise<Map<string, LoadedDelivery>>;
  /** Leases a pending delivery for an explicit attempt: 'taken', 'held' (by a worker) or 'final' (nothing to do). */
  take(id: string, owner: string, now: number, leaseUntil: number): Promise<'taken' | 'held' | 'final'>;
  /** Extends a lease still held by `owner`; false when it was lost (expired and taken by another worker). */
  renew(id: string, owner: string, leaseUntil: number): Promise<boolean>;
  /** Gives a lease back (shutdown): the delivery is claimable again at once. */
  release(id: string, owner: string): Promise<void>;
  /** Marks deliveries succeeded with their attempt rows, in one transaction. */
  recordSuccesses(items: readonly SuccessItem[]): Promise<void>;
  /** Whether these successes' attempt rows are all written (a write whose answer was lost may have committed). */
  attemptsRecorded(items: readonly SuccessItem[]): Promise<boolean>;
  recordFailure(failure: FailureRecord): Promise<FailureWritten>;
  /**
   * Reserves `count` send slots `intervalMs` apart for a throttled webhook, atomically across processes, from its
   * next free slot or `now` if that has passed; returns the first slot (ms). delivery/throttle.ts uses it.
   */
  reserveSlots(webhookId: string, count: number, intervalMs: number, now: number): Promise<number>;
  /** Cancels a pending delivery that must not be sent (webhook deleted or disabled, event gone); its record's next
   * one (an ordered webhook's) is due then. */
  cancel(id: string, reason: string, now: string, chain?: Chain): Promise<void>;
  /** Calls `onWake` when deliveries may have been queued (this process's commits; other processes' on PostgreSQL). */
  wakeups(onWake: () => void): Wakeups;
  close(): Promise<void>;
}
