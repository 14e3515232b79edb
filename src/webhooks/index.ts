// Webhooks capability wiring (placeholder: the webhooks issue fills this in).
import type { Core } from '../core.js';

/** Registers the write listener that records events and queues deliveries (transactional outbox). */
export function installWebhooks(_core: Core): void {}

export interface Worker {
  stop(): Promise<void>;
}

/** Starts the delivery worker. */
export async function startWorker(_core: Core): Promise<Worker> {
  return { stop: async () => {} };
}
