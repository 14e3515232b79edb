// PostgreSQL wake-up: the process's LISTEN connection (src/store/notifications.ts) listens on the delivery channel
// (NOTIFY is sent by queueDeliveries and delivered at commit), so a worker in another process starts the first
// attempt at once instead of at the next poll. The worker is also woken whenever LISTEN takes effect, after a
// reconnection too, since NOTIFYs sent while it was disconnected are lost.
import type { Core } from '../../../core.js';
import { notificationsOf } from '../../../store/notifications.js';

/** The NOTIFY channel: queueDeliveries notifies it in the write's transaction (delivered at commit). */
export const DELIVERY_CHANNEL = 'waypost_deliveries';

export interface Listener {
  close(): Promise<void>;
}

export function listenForDeliveries(core: Core, onWake: () => void): Listener {
  const notifications = notificationsOf(core);
  if (!notifications) return { async close() {} };
  // A claim at once after (re)connecting: what was queued while disconnected would otherwise wait for the poll.
  const stop = notifications.subscribe(DELIVERY_CHANNEL, { notified: onWake, listening: onWake });
  return { close: stop };
}
