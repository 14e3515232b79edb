// Whether this process can use Redis right now. The API keeps answering without it (cache bypassed, rate limits
// counted per process), so every Redis call goes through here: while Redis is down nothing waits for it, the outage
// is logged once and once more when it ends, and /readyz and /metrics say so. ioredis reconnects by itself; a
// Redis that stops answering on an open connection (commands time out) is probed until it answers again.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';

/** A command not answered within this is treated as Redis being down (a local Redis answers in well under 1 ms). */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;
const PROBE_MS = 1_000;

/** The client the API uses: commands fail after a short timeout instead of queueing behind a lost connection. */
export function connectRedis(url: string): Redis {
  return new Redis(url, {
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    // Before the first connection commands queue (bounded by the timeout); later, while reconnecting, they fail
    // at once (RedisHealth does not send them while down anyway).
    enableOfflineQueue: true,
    retryStrategy: (attempt) => Math.min(100 * 2 ** attempt, 2_000), // reconnect forever, at most every 2 s
  });
}

export type RedisState = 'up' | 'down';

export class RedisHealth {
  private state: 'starting' | RedisState = 'starting';
  private probe: NodeJS.Timeout | null = null;
  private readonly recoverHooks: Array<() => Promise<void>> = [];
  private recovering = false;
  private closed = false;
  private settle!: () => void;
  /** Settles when the first connection is ready or has failed. */
  private readonly started = new Promise<void>((resolve) => { this.settle = resolve; });

  constructor(readonly redis: Redis, private readonly log: Logger, metrics: Metrics) {
    redis.on('ready', () => void this.recovered());
    redis.on('close', () => this.failed(new Error('connection closed')));
    // ioredis emits an error on every failed reconnect: the transition is logged once instead (see failed()).
    redis.on('error', (err: Error) => {
      if (this.state !== 'down') this.failed(err);
    });
    const up = () => this.state === 'up';
    // The collect callback's `this` is the gauge.
    metrics.gauge('waypost_redis_up', 'Whether this process can use Redis (1) or answers without it (0)', [],
      function collect() {
        this.set(up() ? 1 : 0);
      });
  }

  /**
   * False while Redis is known to be down: callers fall back without sending anything. The first requests wait for
   * the first connection (at most connectTimeout): on a busy process its setup can outlast a command timeout, and
   * their counts must still be shared.
   */
  async usable(): Promise<boolean> {
    if (this.state === 'starting') await this.started;
    return this.state === 'up';
  }

  /**
   * Runs a command on Redis while it is usable: `{ value }` when it answered; undefined when Redis is down or the
   * command failed (Redis is then marked down), so the caller falls back.
   */
  async run<T>(command: () => Promise<T>): Promise<{ value: T } | undefined> {
    if (!(await this.usable())) return undefined;
    try {
      return { value: await command() };
    } catch (err) {
      this.failed(err);
      return undefined;
    }
  }

  /** Redis as /readyz reports it. */
  get status(): RedisState {
    return this.state === 'up' ? 'up' : 'down';
  }

  /** Runs after Redis comes back and before it is used again (replays what could not be written meanwhile). */
  onRecover(hook: () => Promise<void>): void {
    this.recoverHooks.push(hook);
  }

  /** A command failed or timed out, or the connection closed. */
  failed(err: unknown): void {
    if (this.state === 'down' || this.closed) return;
    this.state = 'down';
    this.settle();
    this.log.warn({ err: (err as Error).message ?? String(err) },
      'redis unavailable: answering without the shared cache, rate limits counted per process until it is back');
    this.probe ??= setInterval(() => {
      if (this.redis.status !== 'ready') return; // reconnecting: 'ready' will tell
      this.redis.ping().then(() => this.recovered(), () => {});
    }, PROBE_MS).unref();
  }

  private async recovered(): Promise<void> {
    if (this.state === 'up' || this.recovering) return;
    this.recovering = true;
    try {
      for (const hook of this.recoverHooks) await hook();
    } catch (err) {
      this.recovering = false;
      return this.failed(err); // still not usable: the probe tries again
    }
    this.recovering = false;
    const wasDown = this.state === 'down';
    this.state = 'up';
    this.settle();
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
    if (wasDown) this.log.info('redis available again: shared cache and rate limits resumed');
  }

  /** Before quit(): closing the connection on purpose is not an outage. */
  close(): void {
    this.closed = true;
    this.settle();
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
  }
}
