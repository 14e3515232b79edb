// PostgreSQL wake-up: a dedicated client LISTENs on the delivery channel (NOTIFY is sent by queueDeliveries and
// delivered at commit), so a worker in another process starts the first attempt at once instead of at the next
// poll. The client reconnects after an error (backing off while the database stays away); after reconnecting the
// worker is woken, since NOTIFYs sent while it was disconnected are lost.
import pg from 'pg';
import type { Logger } from 'pino';
/** The NOTIFY channel: queueDeliveries notifies it in the write's transaction (delivered at commit). */
export const DELIVERY_CHANNEL = 'waypost_deliveries';

export interface Listener {
  close(): Promise<void>;
}

/** Longest wait between reconnection attempts while the database stays unreachable. */
const MAX_RETRY_MS = 15_000;

export function listenForDeliveries(url: string, log: Logger, onWake: () => void, retryMs = 500): Listener {
  let client: pg.Client | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let failures = 0; // consecutive failed connections: the next wait doubles, up to MAX_RETRY_MS

  const reconnect = () => {
    if (closed || timer) return;
    // Jittered, so the workers a failover disconnected together do not all come back in the same millisecond.
    const delay = Math.min(MAX_RETRY_MS, retryMs * 2 ** Math.min(failures, 10)) * (0.8 + 0.4 * Math.random());
    failures++;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, delay);
  };

  // Drops a client that failed; only the current one schedules the next attempt (pg can report one loss twice:
  // the server's FATAL message, then the socket's end).
  const drop = (c: pg.Client) => {
    void c.end().catch(() => {});
    if (client !== c) return;
    client = null;
    reconnect();
  };

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: url });
    client = c;
    c.on('notification', () => onWake());
    // Without a listener a lost connection's 'error' event would end the process.
    c.on('error', (err) => {
      if (client === c) log.warn({ err }, 'delivery LISTEN connection lost; reconnecting');
      drop(c);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${DELIVERY_CHANNEL}`);
    } catch (err) {
      if (client === c) log.warn({ err, failures }, 'could not LISTEN for deliveries; retrying');
      drop(c);
      return;
    }
    if (closed || client !== c) {
      await c.end().catch(() => {});
      return;
    }
    if (failures > 0) log.info({ after: failures }, 'delivery LISTEN connection restored');
    failures = 0;
    onWake(); // a claim now: what was queued while disconnected would otherwise wait for the poll
  };

  void connect();
  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      if (c) await c.end().catch(() => {});
    },
  };
}
