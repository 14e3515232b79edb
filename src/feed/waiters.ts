// Long polling (`wait=` on GET /events): requests that found nothing wait here, with no database work while they
// wait. One watcher per process serves them all: it wakes on this process's commits (the bus), on other processes'
// (PostgreSQL NOTIFY on EVENTS_CHANNEL, sent at the commit of every event; SQLite's `PRAGMA data_version`, a pragma
// and no read, checked every POLL_MS while someone waits), reads the new events' heads once, and releases the
// waiters whose filters they pass. Those then read their page.
import type { Core } from '../core.js';
import { notificationsOf } from '../store/notifications.js';
import { EVENTS_CHANNEL } from '../webhooks/outbox.js';
import type { FeedFilter } from './params.js';
import { matches, newestEventId, newEventHeads } from './read.js';

const POLL_MS = 50;
/** New events read per wake-up; more than that releases every waiter (each then reads its own page). */
const SCAN_LIMIT = 1000;

interface Waiter {
  filter: FeedFilter;
  release(found: boolean): void;
}

export class FeedWaiters {
  private readonly waiters = new Set<Waiter>();
  /** The newest event id seen, while anyone waits (null: read it again before the next waiter's page). */
  private seen: string | null = null;
  private priming: Promise<void> | null = null;
  private scanning: Promise<void> | null = null;
  private again = false;
  private subscribed = false;
  private timer: NodeJS.Timeout | null = null;
  private version: number | null = null;
  private readonly source;

  constructor(private readonly core: Core) {
    this.source = core.store.sql.changeSource('SELECT 1');
  }

  /** How many requests wait now (metrics, tests). */
  get size(): number {
    return this.waiters.size;
  }

  /**
   * Registers a wait before the caller reads its page (so that nothing committed between the read and the wait is
   * missed): `until` then resolves true once a matching event committed, false after `ms` or on `cancel`.
   */
  async enter(filter: FeedFilter, ms: number): Promise<{ until: Promise<boolean>; cancel(): void }> {
    this.listen();
    let release!: (found: boolean) => void;
    const until = new Promise<boolean>((resolve) => { release = resolve; });
    const timeout = setTimeout(() => waiter.release(false), ms);
    const waiter: Waiter = {
      filter,
      release: (found) => {
        clearTimeout(timeout);
        this.waiters.delete(waiter);
        if (this.waiters.size === 0) this.idle();
        release(found);
      },
    };
    this.waiters.add(waiter);
    if (this.seen === null) await (this.priming ??= this.prime());
    return { until, cancel: () => waiter.release(false) };
  }

  private async prime(): Promise<void> {
    this.again = false;
    try {
      // The version first: a commit by another process after it, before the read below, still wakes.
      if (this.source) this.version = this.source.version();
      this.seen = await newestEventId(this.core.db);
    } finally {
      this.priming = null;
    }
    if (this.source) this.timer ??= setInterval(() => this.checkVersion(), POLL_MS);
    // A commit while the position was read may be after it: look.
    if (this.again) {
      this.again = false;
      this.wake();
    }
  }

  /** No one waits: forget the position (the next waiter reads it again) and stop checking. */
  private idle(): void {
    this.seen = null;
    this.version = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private listen(): void {
    if (this.subscribed) return;
    this.subscribed = true;
    const wake = () => this.wake();
    this.core.bus.on('records.changed', wake);
    // Whatever was committed while the connection was down is read at the next wake-up, which comes at LISTEN.
    notificationsOf(this.core)?.subscribe(EVENTS_CHANNEL, { notified: wake, listening: wake });
  }

  private checkVersion(): void {
    const version = this.source!.version();
    if (version !== this.version) this.wake();
    this.version = version;
  }

  /** Reads the events committed since the last wake-up once, and releases the waiters they concern. */
  wake(): void {
    if (this.waiters.size === 0) return;
    if (this.scanning || this.priming) {
      this.again = true;
      return;
    }
    if (this.seen === null) return;
    this.scanning = this.scan().catch((err: unknown) => {
      this.core.log.warn({ err }, 'event feed: reading new events failed; releasing the waiting requests');
      for (const w of [...this.waiters]) w.release(true);
    }).finally(() => {
      this.scanning = null;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async scan(): Promise<void> {
    const heads = await newEventHeads(this.core.db, this.seen!, SCAN_LIMIT);
    if (heads.length === 0 || this.seen === null) return;
    this.seen = heads[heads.length - 1].id;
    for (const w of [...this.waiters]) {
      if (heads.length === SCAN_LIMIT || heads.some((e) => matches(w.filter, e))) w.release(true);
    }
  }
}

const perCore = new WeakMap<Core, FeedWaiters>();

export function feedWaiters(core: Core): FeedWaiters {
  let w = perCore.get(core);
  if (!w) perCore.set(core, w = new FeedWaiters(core));
  return w;
}
