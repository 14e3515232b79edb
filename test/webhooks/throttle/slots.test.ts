// The throttle's parts with a fake clock and the in-memory queue: GCRA's slot arithmetic, one reservation per
// webhook and tick, the backlog's smaller limit for a throttled webhook, and a worker that spaces sends by the
// slots and gives back, unsent, what still waits for a slot when it stops.
import { describe, expect, it } from 'vitest';
import { loadConfig, withOverrides, type Config } from '../../../src/config.js';
import { Bus, type Core } from '../../../src/core.js';
import { createLogger } from '../../../src/log.js';
import type { SendResult } from '../../../src/webhooks/send.js';
import { Backlog } from '../../../src/webhooks/delivery/backlog.js';
import { reserve, slotInterval, Throttle, throttledConcurrency } from '../../../src/webhooks/delivery/throttle.js';
import { DeliveryWorker } from '../../../src/webhooks/delivery/worker.js';
import type { Sender } from '../../../src/webhooks/delivery/attempt.js';
import { MemoryQueue } from '../engine/memory-queue.js';

const T = 1_000_000;

function fakeCore(config: Partial<Config> = {}): Core & { clock: { now(): number; t: number } } {
  const clock = { t: T, now() { return this.t; } };
  const core = {
    config: withOverrides(loadConfig({}), { pollMs: 3_600_000, ...config }),
    log: createLogger('silent'), clock, bus: new Bus(), writeListeners: [], filters: {},
  };
  return core as unknown as Core & { clock: typeof clock };
}

const ok: SendResult = { status: 200, headers: {}, body: '', durationMs: 1, error: null };

describe('slot arithmetic (GCRA)', () => {
  it('starts an idle webhook now, spaces slots 1000/N ms apart, and banks no unused time', () => {
    expect(slotInterval(20)).toBe(50);
    expect(slotInterval(3)).toBeCloseTo(333.333, 3);
    expect(reserve(null, T, 3, 50)).toEqual({ first: T, next: T + 150 });
    expect(reserve(T + 150, T + 10, 2, 50)).toEqual({ first: T + 150, next: T + 250 }); // queued behind
    expect(reserve(T + 250, T + 5_000, 1, 50)).toEqual({ first: T + 5_000, next: T + 5_050 }); // idle: no burst
    // 3/s for a minute: 180 slots, the last ends exactly 60 s on (no rounding drift).
    let next: number | null = null;
    for (let i = 0; i < 180; i++) next = reserve(next, T, 1, slotInterval(3)).next;
    expect(next).toBeCloseTo(T + 60_000, 6);
  });

  it('runs 2 per second of the limit at once per worker, within the per-webhook concurrency', () => {
    expect(throttledConcurrency(1, 16)).toBe(2);
    expect(throttledConcurrency(5, 16)).toBe(10);
    expect(throttledConcurrency(20, 16)).toBe(16);
  });
});

describe('Throttle', () => {
  it('reserves the slots asked for in one tick with one statement, then continues after them', async () => {
    const queue = new MemoryQueue();
    let statements = 0;
    const reserveSlots = queue.reserveSlots.bind(queue);
    queue.reserveSlots = async (...args) => { statements++; return reserveSlots(...args); };
    const clock = { now: () => T };
    const throttle = new Throttle(queue, clock);
    const first = await Promise.all([1, 2, 3].map(() => throttle.slot('wh_a', 10)));
    expect(first).toEqual([T, T + 100, T + 200]);
    expect(statements).toBe(1);
    expect(await throttle.slot('wh_a', 10)).toBe(T + 300);
    expect(await throttle.slot('wh_b', 10)).toBe(T); // each webhook its own slots
    expect(statements).toBe(3);
  });
});

describe('Backlog with a throttled webhook', () => {
  it('starts fewer of a throttled webhook at once; an unthrottled one keeps the per-webhook limit', () => {
    const queue = new MemoryQueue();
    const slow = queue.addWebhook('wh_slow', 1, 1);
    const fast = queue.addWebhook('wh_fast');
    const backlog = new Backlog(4);
    for (let i = 0; i < 6; i++) {
      for (const w of [slow, fast]) {
        const id = `${w.id}_${i}`;
        const loaded = { delivery: queue.queue(id, w.id), webhook: w, event: undefined };
        backlog.add({ id, webhookId: w.id, leaseUntil: T, leaseTakenOver: false, loaded });
      }
    }
    const started = [];
    for (let item = backlog.start(); item; item = backlog.start()) started.push(item.webhookId);
    expect(started.filter((w) => w === 'wh_slow')).toHaveLength(2); // throttledConcurrency(1, 4)
    expect(started.filter((w) => w === 'wh_fast')).toHaveLength(4);
    expect(backlog.heldAtLeast(2).sort()).toEqual(['wh_slow']); // 6 held >= 2 rounds of 2; the fast one needs 8
  });
});

describe('a worker with throttled webhooks', () => {
  it('sends at the reserved slots and gives back, unsent, the deliveries still waiting when it stops', async () => {
    const core = fakeCore();
    const queue = new MemoryQueue();
    queue.addWebhook('wh_slow', 1, 2); // 2/s: slots 500 ms apart
    queue.addWebhook('wh_fast');
    for (let i = 0; i < 4; i++) queue.queue(`dlv_slow_${i}`, 'wh_slow');
    for (let i = 0; i < 4; i++) queue.queue(`dlv_fast_${i}`, 'wh_fast');
    const sent: Array<{ url: string; at: number }> = [];
    const send: Sender = async (_core, r) => { sent.push({ url: r.url, at: Date.now() }); return ok; };
    const worker = new DeliveryWorker(core, { queue, send }).start();
    const began = Date.now();
    await expect.poll(() => sent.length, { timeout: 5_000 }).toBe(5); // 4 unthrottled + the first slot
    expect(sent.filter((s) => s.url.endsWith('wh_fast'))).toHaveLength(4);
    await expect.poll(() => sent.length, { timeout: 5_000 }).toBe(6); // the second slot, 500 ms on
    expect(Date.now() - began).toBeGreaterThanOrEqual(450);
    // All four started at once (throttledConcurrency(2, 16) = 4): one statement reserved T, +500, +1000, +1500.
    expect(queue.nextSlots.get('wh_slow')).toBe(T + 2_000);
    await worker.stop(); // the third slot is 1 s after the first: it and the fourth are still waiting
    const slow = [...queue.deliveries.values()].filter((d) => d.webhook_id === 'wh_slow');
    const waiting = slow.filter((x) => x.status === 'pending');
    expect(waiting.length).toBeGreaterThanOrEqual(1);
    for (const d of waiting) expect(d).toMatchObject({ lease_owner: null, lease_until: null, attempts: 0 });
    expect(sent).toHaveLength(8 - waiting.length);
  });
});
