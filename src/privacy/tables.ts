// Table types owned by the privacy capability (migration 0030).

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

export interface PrivacyTables {
  erasures: ErasureRow;
}
