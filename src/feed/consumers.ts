// Server-kept positions (`consumer=NAME` on GET /events, POST /events/ack): per API key, the last event a consumer
// acknowledged, so that a restarted consumer resumes right after it without keeping a cursor. An acknowledgement
// is one upsert that only moves the position forward, so two acknowledging at once leave the later event.
import { sql } from 'kysely';
import type { Core } from '../core.js';
import { badRequest, invalidParameter } from '../errors.js';
import type { FeedConsumerRow } from './tables.js';
import { EVENT_ID_PATTERN } from './params.js';
import { readEvent } from './read.js';

export const CONSUMER_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';

export interface ConsumerView {
  consumer: string;
  event_id: string;
  updated_at: string;
}

const view = (row: FeedConsumerRow): ConsumerView =>
  ({ consumer: row.name, event_id: row.event_id, updated_at: row.updated_at });

/** The event a consumer acknowledged last; 400 naming `consumer` when this key has none of that name. */
export async function consumerPosition(core: Core, keyId: string, name: string): Promise<string> {
  const row = await core.db.selectFrom('feed_consumers').select('event_id')
    .where('key_id', '=', keyId).where('name', '=', name).executeTakeFirst();
  if (!row) {
    throw invalidParameter('consumer', `this API key has no consumer "${name}" yet: read the feed without it and `
      + 'acknowledge what you processed (POST /events/ack), which creates it');
  }
  return row.event_id;
}

/** Moves (or creates) a consumer's position to `eventId`, never backwards. */
export async function acknowledge(core: Core, keyId: string, name: string, eventId: string): Promise<ConsumerView> {
  if (!new RegExp(CONSUMER_PATTERN).test(name)) {
    throw invalidParameter('consumer', 'letters, digits, dot, dash and underscore, up to 64, starting with one of the '
      + 'first two');
  }
  if (!new RegExp(EVENT_ID_PATTERN).test(eventId) || !(await readEvent(core.db, eventId))) {
    throw badRequest('invalid_parameter', `event_id: no event ${eventId.slice(0, 40)} in the feed`,
      { parameter: 'event_id' });
  }
  const now = new Date(core.clock.now()).toISOString();
  const row = await core.db.insertInto('feed_consumers')
    .values({ key_id: keyId, name, event_id: eventId, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['key_id', 'name']).doUpdateSet({
      event_id: sql<string>`CASE WHEN excluded.event_id > feed_consumers.event_id THEN excluded.event_id
        ELSE feed_consumers.event_id END`,
      updated_at: now,
    }))
    .returningAll().executeTakeFirstOrThrow();
  return view(row);
}
