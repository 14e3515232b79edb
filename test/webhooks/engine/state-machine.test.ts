// The retry schedule, the attempt's outcomes and the worker's scheduling against an in-memory queue and a fake
// sender: no database, no receiver, no waiting (milliseconds).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, withOverrides, type Config } from '../../../src/config.js';
import { Bus, type Core } from '../../../src/core.js';
import { createLogger } from '../../../src/log.js';
import { attemptDelivery, type Sender } from '../../../src/webhooks/delivery/attempt.js';
import {
  afterFailure, alertLevel, parseRetryAfter, receiverSignal, schedule, signalNote,
} from '../../../src/webhooks/delivery/schedule.js';
import { DeliveryWorker } from '../../../src/webhooks/delivery/worker.js';
import type { SendResult } from '../../../src/webhooks/send.js';
import { MemoryQueue } from './memory-queue.js';

const DELAYS = [60_000, 300_000, 900_000, 1_800_000];

function fakeCore(config: Partial<Config> = {}): Core & { clock: { now(): number; t: number } } {
  const clock = { t: 1_000_000, now() { return this.t; } };
  const core = {
    config: withOverrides(loadConfig({}), { pollMs: 3_600_000, ...config }),
    log: createLogger('silent'), clock, bus: new Bus(), writeListeners: [], filters: {},
  };
  return core as unknown as Core & { clock: typeof clock };
}

const answer = (status: number | null, headers: Record<string, string> = {}): SendResult =>
  ({ status, headers, body: '', durationMs: 1, error: status === null ? 'connection refused' : null });

describe('schedule', () => {
  it('spaces attempts 2-5 by the configured delays and ends after the last', () => {
    expect([1, 2, 3, 4].map((n) => schedule(n, DELAYS, 0))).toEqual(DELAYS);
    expect(schedule(5, DELAYS, 0)).toBe('exhausted');
    expect(schedule(1, [], 0)).toBe('exhausted');
    expect(afterFailure(2, DELAYS, 10, false)).toEqual({ kind: 'retry', at: 300_010 });
    expect(afterFailure(1, DELAYS, 10, true)).toEqual({ kind: 'exhausted' }); // a "Send test" sample is tried once
  });

  it('warns after attempts 3 and 4 fail and is critical when exhausted; test samples never alert', () => {
    const levels = [1, 2, 3, 4, 5].map((n) => alertLevel(afterFailure(n, DELAYS, 0, false), n, 5, false));
    expect(levels).toEqual([null, null, 'warning', 'warning', 'critical']);
    expect(alertLevel({ kind: 'exhausted' }, 1, 5, true)).toBeNull();
    expect(alertLevel({ kind: 'succeeded' }, 5, 5, false)).toBeNull();
  });
});

describe('receiver signals', () => {
  const HOUR = 3_600_000;
  const wait = (ms: number) => ({ kind: 'retry-after', ms }) as const;

  it('reads Retry-After as seconds or an HTTP-date, on a 429 or 503 only; a 410 is Gone', () => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Tue, 24 Nov 2026 12:03:00 GMT', now)).toBe(180_000);
    expect(parseRetryAfter('Tue, 24 Nov 2026 11:00:00 GMT', now)).toBe(0); // in the past
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
    expect(receiverSignal(429, { 'retry-after': '120' }, now)).toEqual(wait(120_000));
    expect(receiverSignal(503, { 'Retry-After': '7' }, now)).toEqual(wait(7_000));
    expect(receiverSignal(500, { 'retry-after': '120' }, now)).toBeNull();
    expect(receiverSignal(429, {}, now)).toBeNull();
    expect(receiverSignal(410, null, now)).toEqual({ kind: 'gone' });
  });

  it('postpones Retry(at) past the schedule, capped at the delay + 1 h; a shorter one changes nothing', () => {
    expect(afterFailure(1, DELAYS, 0, false, wait(120_000)))
      .toEqual({ kind: 'retry', at: 120_000, retryAfterMs: 120_000 });
    expect(afterFailure(1, DELAYS, 0, false, wait(30_000))).toEqual({ kind: 'retry', at: 60_000 });
    expect(afterFailure(1, DELAYS, 0, false, wait(86_400_000))).toMatchObject({ kind: 'retry', at: 60_000 + HOUR });
    expect(afterFailure(5, DELAYS, 0, false, wait(120_000))).toEqual({ kind: 'exhausted' }); // never more attempts
    expect(signalNote(1, DELAYS, false, { status: 429, headers: { 'retry-after': '120' }, answeredAt: 0 }))
      .toBe('postponed by Retry-After: 120 s');
    expect(signalNote(1, DELAYS, false, { status: 429, headers: { 'retry-after': '30' }, answeredAt: 0 })).toBeNull();
    expect(signalNote(1, DELAYS, false, { status: 500, headers: { 'retry-after': '120' }, answeredAt: 0 })).toBeNull();
  });

  it('a 410 disables at once with a critical alert, at any attempt; a test sample only ends', () => {
    const gone = afterFailure(1, DELAYS, 0, false, { kind: 'gone' });
    expect(gone).toEqual({ kind: 'disabled', reason: 'the receiver answered 410 Gone' });
    expect(alertLevel(gone, 1, 5, false)).toBe('critical');
    expect(afterFailure(1, DELAYS, 0, true, { kind: 'gone' })).toEqual({ kind: 'exhausted' });
    expect(signalNote(1, DELAYS, false, { status: 410, headers: {}, answeredAt: 0 }))
      .toBe('webhook disabled: 410 Gone');
  });
});

describe('an attempt against the queue', () => {
  it('a 429 with Retry-After goes Retry(at) at the postponed time; a 410 goes Disabled (webhook off)', async () => {
    const core = fakeCore();
    const queue = new MemoryQueue();
    queue.addWebhook('wh_a');
    queue.queue('dlv_1', 'wh_a');
    let reply = answer(429, { 'retry-after': '120' });
    const send: Sender = async () => reply;
    const first = await attemptDelivery(core, 'dlv_1', { queue, send });
    expect(first).toMatchObject({ status: 'pending', outcome: { kind: 'retry', at: 1_000_000 + 120_000 } });
    expect(queue.deliveries.get('dlv_1')!.next_attempt_at).toBe(1_000_000 + 120_000);
    core.clock.t += 120_000;
    reply = answer(410);
    const second = await attemptDelivery(core, 'dlv_1', { queue, send });
    expect(second).toMatchObject({
      status: 'failed', outcome: { kind: 'disabled', reason: 'the receiver answered 410 Gone' }, nextAttemptAt: null,
    });
    expect(queue.disabled).toEqual(['wh_a']);
    expect(queue.webhooks.get('wh_a')!.disabled_reason).toBe('the receiver answered 410 Gone');
  });

  it('goes Retry(at) four times then Exhausted, disabling the webhook', async () => {
    const core = fakeCore();
    const queue = new MemoryQueue();
    queue.addWebhook('wh_a');
    queue.queue('dlv_1', 'wh_a');
    const send: Sender = async () => answer(500);
    const outcomes = [];
    for (let i = 0; i < 5; i++) {
      const r = await attemptDelivery(core, 'dlv_1', { queue, send });
      outcomes.push(r.outcome);
      core.clock.t += 3_600_000;
    }
    expect(outcomes.map((o) => o?.kind)).toEqual(['retry', 'retry', 'retry', 'retry', 'exhausted']);
    expect(outcomes[0]).toEqual({ kind: 'retry', at: 1_000_000 + 60_000 });
    expect(queue.deliveries.get('dlv_1')).toMatchObject({ status: 'failed', attempts: 5, next_attempt_at: null });
    expect(queue.disabled).toEqual(['wh_a']);
    expect(queue.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
  });

  it('ends Succeeded on a 200, and Cancelled without sending to a disabled webhook', async () => {
    const core = fakeCore();
    const queue = new MemoryQueue();
    queue.addWebhook('wh_a');
    queue.addWebhook('wh_off', 0);
    queue.queue('dlv_ok', 'wh_a');
    queue.queue('dlv_off', 'wh_off');
    let sent = 0;
    const send: Sender = async () => { sent++; return answer(200); };
    const ok = await attemptDelivery(core, 'dlv_ok', { queue, send });
    expect(ok).toMatchObject({ status: 'succeeded', outcome: { kind: 'succeeded' }, attempt: 1 });
    const worker = new DeliveryWorker(core, { queue, send });
    await worker.drain();
    expect(queue.deliveries.get('dlv_off')).toMatchObject({ status: 'cancelled', cancel_reason: 'webhook disabled' });
    expect(sent).toBe(1);
    await worker.stop();
  });

  it('a failure after the delivery was cancelled in flight leaves it Cancelled', async () => {
    const core = fakeCore();
    const queue = new MemoryQueue();
    queue.addWebhook('wh_a');
    queue.queue('dlv_1', 'wh_a');
    const send: Sender = async () => {
      Object.assign(queue.deliveries.get('dlv_1')!, { status: 'cancelled', cancel_reason: 'webhook deleted' });
      return answer(503);
    };
    const r = await attemptDelivery(core, 'dlv_1', { queue, send });
    expect(r).toMatchObject({ status: 'cancelled', outcome: { kind: 'cancelled', reason: 'webhook deleted' } });
  });
});

describe('the worker against the queue', () => {
  it('claims prefetchRounds rounds ahead and keeps each webhook within its concurrency', async () => {
    const core = fakeCore({ deliveryConcurrency: 4, perWebhookConcurrency: 2, prefetchRounds: 3, gatherMs: 0 });
    const queue = new MemoryQueue();
    for (const w of ['wh_a', 'wh_b', 'wh_c']) queue.addWebhook(w);
    for (let i = 0; i < 90; i++) queue.queue(`dlv_${String(i).padStart(3, '0')}`, ['wh_a', 'wh_b', 'wh_c'][i % 3]);
    const running = new Map<string, number>();
    let most = 0;
    const send: Sender = async (_core, request) => {
      const n = (running.get(request.url) ?? 0) + 1;
      running.set(request.url, n);
      most = Math.max(most, n);
      await new Promise((r) => setImmediate(r));
      running.set(request.url, running.get(request.url)! - 1);
      return answer(200);
    };
    const worker = new DeliveryWorker(core, { queue, send });
    await worker.drain();
    await worker.stop();
    expect([...queue.deliveries.values()].every((d) => d.status === 'succeeded')).toBe(true);
    expect(most).toBe(2);
    expect(queue.claimLimits[0]).toBe(12); // 3 rounds of 4
    expect(queue.claimLimits.length).toBeLessThan(30);
  });
});

describe('worker settings', () => {
  it('are read from the environment and checked, as are SDK overrides', () => {
    expect(loadConfig({ WAYPOST_PREFETCH_ROUNDS: '2' }).prefetchRounds).toBe(2);
    expect(loadConfig({}).prefetchRounds).toBe(4);
    expect(() => loadConfig({ WAYPOST_PREFETCH_ROUNDS: '0' })).toThrow(/WAYPOST_PREFETCH_ROUNDS/);
    expect(() => withOverrides(loadConfig({}), { heldRounds: 0 })).toThrow(ConfigError);
    expect(() => withOverrides(loadConfig({}), { gatherMs: 1.5 })).toThrow(/config\.gatherMs/);
    expect(() => withOverrides(loadConfig({}), { retryDelaysMs: [-1] })).toThrow(/retryDelaysMs/);
  });
});
