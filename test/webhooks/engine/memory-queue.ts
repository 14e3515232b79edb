// An in-memory DeliveryQueue (the seam's third implementation): the worker and the attempt's state machine run
// against it in milliseconds, with no database, thread or receiver.
import type {
  ClaimRequest, Claimed, DeliveryQueue, FailureRecord, FailureWritten, LoadedDelivery, SuccessItem, Wakeups,
} from '../../../src/webhooks/delivery/queue/index.js';
import type { DeliveryAttemptRow, DeliveryRow, EventRow, WebhookRow } from '../../../src/webhooks/tables.js';
import { reserve } from '../../../src/webhooks/delivery/throttle.js';

export class MemoryQueue implements DeliveryQueue {
  readonly deliveries = new Map<string, DeliveryRow>();
  readonly webhooks = new Map<string, WebhookRow>();
  readonly events = new Map<string, EventRow>();
  readonly attempts: DeliveryAttemptRow[] = [];
  readonly disabled: string[] = [];
  readonly claimLimits: number[] = [];
  readonly nextSlots = new Map<string, number>(); // the throttle's next free slot per webhook
  private readonly listeners = new Set<() => void>();

  addWebhook(id: string, active = 1, maxPerSecond: number | null = null): WebhookRow {
    const row: WebhookRow = {
      id, name: id, url: `http://receiver.test/${id}`, events: '["enquiry.created"]', secret: 'whsec_test',
      previous_secret: null, previous_secret_expires_at: null, active, disabled_reason: null, created_at: '',
      updated_at: '', deleted_at: null,
      max_per_second: maxPerSecond, ordering: 'none',
    };
    this.webhooks.set(id, row);
    return row;
  }

  /** Queues a delivery of a new event to `webhookId`, due at `at`, and wakes the worker. */
  queue(id: string, webhookId: string, at = 0, test = 0): DeliveryRow {
    const eventId = `evt_${id}`;
    this.events.set(eventId, {
      id: eventId, type: 'enquiry.created', resource: 'enquiries', record_id: 1, data: '{"id":1}',
      previous_attributes: null, test, created_at: '',
    });
    const row: DeliveryRow = {
      id, webhook_id: webhookId, event_id: eventId, event_type: 'enquiry.created', status: 'pending', attempts: 0,
      next_attempt_at: at, lease_owner: null, lease_until: null, last_status: null, last_error: null,
      cancel_reason: null, redelivery_of: null, created_at: '', updated_at: '', completed_at: null,
      order_key: null, waits_for: null,
    };
    this.deliveries.set(id, row);
    for (const l of this.listeners) l();
    return row;
  }

  async open(): Promise<void> {}
  async close(): Promise<void> {}

  async claim({ owner, limit, now, leaseMs, skipWebhooks }: ClaimRequest): Promise<Claimed[]> {
    this.claimLimits.push(limit);
    const due = [...this.deliveries.values()]
      .filter((d) => d.status === 'pending' && (d.next_attempt_at ?? Infinity) <= now)
      .filter((d) => d.lease_until === null || d.lease_until <= now)
      .filter((d) => !skipWebhooks.includes(d.webhook_id))
      .sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at))
      .slice(0, limit);
    const loaded = await this.load(due.map((d) => d.id));
    return due.map((d) => {
      const leaseTakenOver = d.lease_until !== null;
      Object.assign(d, { lease_owner: owner, lease_until: now + leaseMs });
      const leaseUntil = now + leaseMs;
      return { id: d.id, webhookId: d.webhook_id, leaseUntil, leaseTakenOver, loaded: loaded.get(d.id)! };
    });
  }

  async load(ids: readonly string[]): Promise<Map<string, LoadedDelivery>> {
    const out = new Map<string, LoadedDelivery>();
    for (const id of ids) {
      const d = this.deliveries.get(id);
      if (d) out.set(id, { delivery: { ...d }, webhook: this.webhooks.get(d.webhook_id),
        event: this.events.get(d.event_id) });
    }
    return out;
  }

  async take(id: string, owner: string, now: number, leaseUntil: number): Promise<'taken' | 'held' | 'final'> {
    const d = this.deliveries.get(id);
    if (!d) throw new Error(`delivery ${id} does not exist`);
    if (d.status !== 'pending') return 'final';
    if (d.lease_until !== null && d.lease_until > now) return 'held';
    Object.assign(d, { lease_owner: owner, lease_until: leaseUntil });
    return 'taken';
  }

  async renew(id: string, owner: string, leaseUntil: number): Promise<boolean> {
    const d = this.deliveries.get(id);
    if (!d || d.lease_owner !== owner || d.status !== 'pending') return false;
    d.lease_until = leaseUntil;
    return true;
  }

  async release(id: string, owner: string): Promise<void> {
    const d = this.deliveries.get(id);
    if (d?.lease_owner === owner) Object.assign(d, { lease_owner: null, lease_until: null });
  }

  async attemptsRecorded(items: readonly SuccessItem[]): Promise<boolean> {
    return items.every((i) => this.attempts.some((a) => a.id === i.attempt.id));
  }

  async recordSuccesses(items: readonly SuccessItem[]): Promise<void> {
    for (const { attempt, now } of items) {
      this.attempts.push(attempt);
      Object.assign(this.deliveries.get(attempt.delivery_id)!, {
        status: 'succeeded', attempts: attempt.attempt, next_attempt_at: null, lease_owner: null, lease_until: null,
        last_status: 200, completed_at: now,
      });
    }
  }

  async recordFailure(f: FailureRecord): Promise<FailureWritten> {
    const d = this.deliveries.get(f.attempt.delivery_id)!;
    this.attempts.push(f.attempt);
    const status = d.status === 'cancelled' ? 'cancelled' : f.status;
    Object.assign(d, {
      status, attempts: f.attempt.attempt, next_attempt_at: status === 'pending' ? f.nextAttemptAt : null,
      lease_owner: null, lease_until: null, last_status: f.attempt.response_status, last_error: f.attempt.error,
    });
    if (status === 'failed' && f.disable) {
      this.disabled.push(f.disable.webhookId);
      Object.assign(this.webhooks.get(f.disable.webhookId)!, { active: 0, disabled_reason: f.disable.reason });
    }
    return { status, cancelReason: d.cancel_reason };
  }

  async reserveSlots(webhookId: string, count: number, intervalMs: number, now: number): Promise<number> {
    const { first, next } = reserve(this.nextSlots.get(webhookId) ?? null, now, count, intervalMs);
    this.nextSlots.set(webhookId, next);
    return first;
  }

  async cancel(id: string, reason: string): Promise<void> {
    const d = this.deliveries.get(id);
    if (d?.status === 'pending') Object.assign(d, { status: 'cancelled', cancel_reason: reason, lease_owner: null });
  }

  wakeups(onWake: () => void): Wakeups {
    this.listeners.add(onWake);
    return { close: async () => { this.listeners.delete(onWake); } };
  }
}
