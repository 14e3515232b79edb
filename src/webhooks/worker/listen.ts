// PostgreSQL wake-up: a dedicated client LISTENs on the delivery channel (NOTIFY is sent by queueDelivery and
// delivered at commit), so a worker in another process starts the first attempt at once instead of at the next
// poll. The client reconnects after an error; after reconnecting the worker is woken, in case it missed one.
import pg from 'pg';
import type { Logger } from 'pino';
import { DELIVERY_CHANNEL } from '../outbox.js';

export interface Listener {
  close(): Promise<void>;
}

export function listenForDeliveries(url: string, log: Logger, onWake: () => void, retryMs = 1_000): Listener {
  let client: pg.Client | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;

  const reconnect = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, retryMs);
  };

  const connect = async () => {
    const c = new pg.Client({ connectionString: url });
    client = c;
    c.on('notification', () => onWake());
    c.on('error', (err) => {
      log.warn({ err }, 'delivery LISTEN connection lost; reconnecting');
      void c.end().catch(() => {});
      if (client === c) client = null;
      reconnect();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${DELIVERY_CHANNEL}`);
      if (closed) await c.end();
      else onWake();
    } catch (err) {
      log.warn({ err }, 'could not LISTEN for deliveries; retrying');
      void c.end().catch(() => {});
      if (client === c) client = null;
      reconnect();
    }
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
