// PostgreSQL LISTEN/NOTIFY: one dedicated client per process LISTENs on every channel that something in the process
// subscribed to (the delivery wake-up, the API's key changes). NOTIFY is delivered at commit, to every listening
// session of the database. The client reconnects after an error, backing off while the database stays away; a
// heartbeat (LISTEN again, a no-op that needs an answer) notices a connection that went silent. Subscribers are told
// when notifications can be lost (the connection dropped, or is not up yet) and when LISTEN is back, since whatever
// was notified meanwhile is lost: each decides what to redo (wake the worker, drop the keys held in memory).
import { sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Core } from '../core.js';
import { dialectOf } from './dialect.js';
import type { UntypedDb } from './tables.js';

export interface ChannelListener {
  /** A NOTIFY on the channel. */
  notified(payload: string): void;
  /** LISTEN took effect: first after subscribing, again after each reconnection. */
  listening?(): void;
  /** The connection was lost: notifications are missed until `listening` is called again. */
  lost?(): void;
}

export interface NotificationOptions {
  /** First wait before reconnecting; doubles per failed attempt, up to MAX_RETRY_MS. */
  retryMs?: number;
  /** How often the connection is checked; a check not answered within the same time drops it. */
  heartbeatMs?: number;
}

/** Longest wait between reconnection attempts while the database stays unreachable. */
const MAX_RETRY_MS = 15_000;

export class Notifications {
  private readonly channels = new Map<string, Set<ChannelListener>>();
  private client: pg.Client | null = null;
  /** Whether `client` has LISTENed on every channel (then new subscribers are told `listening` at once). */
  private up = false;
  private timer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private failures = 0; // consecutive failed connections: the next wait doubles, up to MAX_RETRY_MS
  private readonly retryMs: number;
  private readonly heartbeatMs: number;

  constructor(private readonly url: string, private readonly log: Logger, options: NotificationOptions = {}) {
    this.retryMs = options.retryMs ?? 500;
    this.heartbeatMs = options.heartbeatMs ?? 10_000;
  }

  /** Starts listening on `channel` (connecting on the first subscription); the returned function stops. */
  subscribe(channel: string, listener: ChannelListener): () => Promise<void> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
    let listeners = this.channels.get(channel);
    const fresh = !listeners;
    if (!listeners) this.channels.set(channel, listeners = new Set());
    listeners.add(listener);
    if (!this.client && !this.timer) void this.connect();
    else if (fresh && this.up) void this.listenOn(this.client!, channel);
    else if (this.up) listener.listening?.();
    return () => this.unsubscribe(channel, listener);
  }

  private async unsubscribe(channel: string, listener: ChannelListener): Promise<void> {
    const listeners = this.channels.get(channel);
    if (!listeners?.delete(listener) || listeners.size > 0) return;
    this.channels.delete(channel);
    const c = this.client;
    if (this.channels.size === 0) return this.stop();
    if (c && this.up) await c.query(`UNLISTEN ${channel}`).catch(() => {});
  }

  private each(channels: Iterable<string>, call: (l: ChannelListener) => void): void {
    for (const channel of channels) for (const l of [...(this.channels.get(channel) ?? [])]) call(l);
  }

  /** LISTEN on one channel subscribed while the connection was up. */
  private async listenOn(c: pg.Client, channel: string): Promise<void> {
    try {
      await c.query(`LISTEN ${channel}`);
    } catch (err) {
      return this.drop(c, err, 'LISTEN failed');
    }
    if (this.client === c && this.up) this.each([channel], (l) => l.listening?.());
  }

  private async connect(): Promise<void> {
    if (this.channels.size === 0) return;
    // TCP keepalive from 5 s (the OS default waits two hours) helps notice a peer that vanished.
    const c = new pg.Client({ connectionString: this.url, keepAlive: true, keepAliveInitialDelayMillis: 5_000 });
    this.client = c;
    c.on('notification', (n) => {
      if (this.client === c) this.each([n.channel], (l) => l.notified(n.payload ?? ''));
    });
    // Without a listener a lost connection's 'error' event would end the process.
    c.on('error', (err) => this.drop(c, err, 'LISTEN connection lost; reconnecting'));
    c.on('end', () => this.drop(c, new Error('connection ended'), 'LISTEN connection lost; reconnecting'));
    try {
      await c.connect();
      // Channels subscribed while this LISTEN was on its way are LISTENed to in the next round.
      const listened = new Set<string>();
      for (let missing = this.missing(listened); missing.length > 0; missing = this.missing(listened)) {
        await c.query(missing.map((ch) => `LISTEN ${ch}`).join('; '));
        for (const ch of missing) listened.add(ch);
      }
    } catch (err) {
      return this.drop(c, err, 'could not LISTEN; retrying');
    }
    if (this.client !== c) return; // dropped or stopped meanwhile
    if (this.failures > 0) this.log.info({ after: this.failures }, 'LISTEN connection restored');
    this.failures = 0;
    this.up = true;
    this.heartbeat = setInterval(() => void this.check(c), this.heartbeatMs).unref();
    this.each(this.channels.keys(), (l) => l.listening?.());
  }

  private missing(listened: Set<string>): string[] {
    return [...this.channels.keys()].filter((ch) => !listened.has(ch));
  }

  private listenAll(): string {
    return [...this.channels.keys()].map((ch) => `LISTEN ${ch}`).join('; ');
  }

  /** LISTEN again on every channel (a no-op): a connection that does not answer in time is dropped. */
  private async check(c: pg.Client): Promise<void> {
    let timeout: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timeout = setTimeout(() => reject(new Error('no answer to the heartbeat')), this.heartbeatMs).unref();
    });
    try {
      await Promise.race([c.query(this.listenAll()), late]);
    } catch (err) {
      this.drop(c, err, 'LISTEN connection not answering; reconnecting');
    } finally {
      clearTimeout(timeout);
    }
  }

  /**
   * Drops a client that failed; only the current one tells the subscribers and schedules the next attempt (pg can
   * report one loss twice: the server's FATAL message, then the socket's end).
   */
  private drop(c: pg.Client, err: unknown, message: string): void {
    c.removeAllListeners('notification');
    void c.end().catch(() => {});
    if (this.client !== c) return;
    const wasUp = this.up;
    this.client = null;
    this.up = false;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.log.warn({ err, failures: this.failures }, message);
    if (wasUp) this.each(this.channels.keys(), (l) => l.lost?.());
    this.reconnect();
  }

  private reconnect(): void {
    if (this.timer || this.channels.size === 0) return;
    // Jittered, so the processes a failover disconnected together do not all come back in the same millisecond.
    const delay = Math.min(MAX_RETRY_MS, this.retryMs * 2 ** Math.min(this.failures, 10)) * (0.8 + 0.4 * Math.random());
    this.failures++;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, delay);
  }

  /** Closes the connection (the last subscriber left). */
  private async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.timer = this.heartbeat = null;
    const c = this.client;
    this.client = null;
    this.up = false;
    this.failures = 0;
    if (c) await c.end().catch(() => {});
  }
}

const perStore = new WeakMap<object, Notifications>();

/** The process's LISTEN connection for this Core's database; null where there is none (SQLite). */
export function notificationsOf(core: Core, options?: NotificationOptions): Notifications | null {
  if (!core.store.pg) return null;
  let n = perStore.get(core.store);
  if (!n) perStore.set(core.store, n = new Notifications(core.store.url, core.log, options));
  return n;
}

/**
 * NOTIFY `channel` inside the caller's transaction: PostgreSQL delivers it at commit (once per transaction, however
 * often it is sent). SQLite has no NOTIFY: nothing to do.
 */
export async function notifyAtCommit(trx: UntypedDb, channel: string): Promise<void> {
  if (dialectOf(trx) === 'postgres') await sql`SELECT pg_notify(${channel}, '')`.execute(trx);
}
