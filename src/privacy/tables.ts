// Table types owned by the privacy capability (migrations 0030 and 0035).

/** One erasure of a person: recorded without their data (a SHA-256 of the e-mail, who asked, what went where). */
export interface ErasureRow {
  id: string; // ers_…
  email_sha256: string | null; // hex, of the lower-cased e-mail; null when asked by customer id alone
  customer_id: number | null; // the customer id it was asked for, if any
  requested_by: string; // host | admin | wordpress | cli
  requester: string | null; // the admin's e-mail or the OS user; null for the host token
  status: 'running' | 'succeeded' | 'failed'; // `running` past lease_until reads as interrupted
  step: string; // ErasureStep
  counts: string; // JSON ErasureCounts
  webhooks: string; // JSON ReceivedBy[]
  event_id: string | null; // the customer.erased event, when one was recorded
  lease_until: number; // ms; renewed by every step
  error: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** Whose a record's events in a range were, after the record was deleted or came to name another (0035). */
export interface PastSubjectRow {
  id: string; // psb_…
  resource: string; // customers | bookings | enquiries | reviews
  record_id: number;
  email_sha256: string | null; // hex, of the lower-cased e-mail the record named
  name_sha256: string | null; // hex, of a review's lower-cased author name
  customer_id: number | null; // the customer it was, or named
  from_event_id: string; // its events from this id (the change that made it name them; '' from the start)...
  until_event_id: string; // ...to before this one (the change's own events included) were that person's
  changed_at_ms: number; // when it stopped naming them: where its next subject's events begin
}

export interface PrivacyTables {
  erasures: ErasureRow;
  past_subjects: PastSubjectRow;
}
