// The retry schedule, the attempt's outcomes and the worker's scheduling against an in-memory queue and a fake
// sender: no database, no receiver, no waiting (milliseconds).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, withOverrides, type Config } from '../../../src/config.js';
import { Bus, type Core } from '../../../src/core.js';
import { createLogger } from '../../../src/log.js';
import { attemptDelivery, type Sender } from '../../../src/webhooks/delivery/attempt.js';
import { afterFailure, alertLevel, schedule } from '../../../src/webhooks/delivery/schedule.js';
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

const answer = (status: number | null): SendResult =>
  ({ status, headers: {}, body: '', durationMs: 1, error: status === null ? 'connection refused' : null });

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

describe('an attempt against the queue', () => {
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
