// The one place that picks the queue for the database Waypost runs on. One queue per Core (its compiled statements
// and, on SQLite, its use of the writer thread are shared by the worker and explicit attempts).
import type { Kysely } from 'kysely';
import type { Core } from '../../../core.js';
import type { Database } from '../../../store/tables.js';
import { notifyQueued, PostgresQueue } from './postgres.js';
import { SqliteQueue } from './sqlite.js';
import type { DeliveryQueue } from './types.js';

export type * from './types.js';

const queues = new WeakMap<Core, DeliveryQueue>();

export function deliveryQueue(core: Core): DeliveryQueue {
  let queue = queues.get(core);
  if (!queue) {
    queue = core.store.dialect === 'postgres' ? new PostgresQueue(core) : new SqliteQueue(core);
    queues.set(core, queue);
  }
  return queue;
}

/** Called in the transaction that queued deliveries: wakes workers in other processes at commit (PostgreSQL). */
export async function announceQueued(db: Kysely<Database>, core: Core): Promise<void> {
  if (core.store.dialect === 'postgres') await notifyQueued(db);
}
