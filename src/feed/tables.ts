// Table types owned by the event feed (migration 0027).

/** A consumer's position (`consumer=NAME` on GET /events): the last event it acknowledged, per API key. */
export interface FeedConsumerRow {
  key_id: string;
  name: string;
  event_id: string; // evt_…: the feed resumes right after it
  created_at: string;
  updated_at: string;
}

export interface FeedTables {
  feed_consumers: FeedConsumerRow;
}
