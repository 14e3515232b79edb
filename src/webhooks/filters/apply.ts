// Where filters act: the write listener (src/webhooks/events.ts) splits an event's subscribers into those it is sent
// to and those whose filter skipped it, inside the host write's transaction.
import { matches } from './language.js';
import { compileStored } from './validate.js';

export interface FilteredSubscriber {
  id: string;
  filter: string | null;
}

/** The envelope's fields a filter can name (docs/webhooks.md "Filters"). */
export interface FilterEnvelope {
  data: unknown;
  previous_attributes?: Record<string, unknown> | null;
}

export function splitByFilter<T extends FilteredSubscriber>(
  subscribers: T[], envelope: FilterEnvelope,
): { send: T[]; skipped: T[] } {
  const send: T[] = [];
  const skipped: T[] = [];
  for (const s of subscribers) {
    (s.filter === null || matches(compileStored(s.filter), envelope) ? send : skipped).push(s);
  }
  return { send, skipped };
}
