// Table types for the read model and API keys. Other capabilities add their own (webhooks, admin) and the
// Database interface composes them, so every query is typed. Booleans are 0/1 integers and times are ISO 8601
// strings on both dialects: one code path, and ISO strings sort correctly as text.
import type { Generated, Kysely } from 'kysely';
import type { WebhookTables } from '../webhooks/tables.js';
import type { AlertTables } from '../alerts/tables.js';
import type { AdminTables } from '../admin/tables.js';
import type { ApiTables } from '../api/tables.js';
import type { FeedTables } from '../feed/tables.js';
import type { PrivacyTables } from '../privacy/tables.js';
import type { AuditTables } from '../audit/tables.js';

export interface TripRow {
  id: number;
  data: string; // the public record as JSON (without derived fields)
  status: string;
  title: string;
  search_text: string;
  created_at: string;
  updated_at: string;
}

export interface CustomerRow {
  id: number;
  data: string;
  email: string; // lower-cased
  search_text: string;
  created_at: string;
  updated_at: string;
}

export interface BookingRow {
  id: number;
  data: string;
  status: string;
  customer_id: number | null;
  customer_email: string | null; // lower-cased
  visible: number; // 0 for legacy bookings (engine_version < 6.7.0): absent from every API result
  booked_at: string | null;
  search_text: string;
  created_at: string;
  updated_at: string;
}

export interface BookingTripRow {
  booking_id: number;
  trip_id: number;
  /** The booking's visibility and times, copied so a trip's bookings list by index in any order. */
  visible: number;
  created_at: string;
  updated_at: string;
}

export interface PaymentRow {
  id: number;
  data: string;
  booking_id: number;
  status: string;
  search_text: string;
  created_at: string;
  updated_at: string;
}

export interface EnquiryRow {
  id: number;
  data: string;
  email: string | null; // lower-cased (migration 0030): a person's enquiries by index
  created_at: string;
}

export interface ReviewRow {
  id: number;
  data: string;
  trip_id: number;
  author: string | null; // the author's name lower-cased (migration 0030): a person's reviews by index
  author_email_sha256: string | null; // of the author's e-mail when the host sent one (migration 0034)
  created_at: string;
}

export interface RecordCountRow {
  resource: string;
  total: number;
}

export interface ApiKeyRow {
  id: string;
  label: string;
  key: string;
  secret_hash: string;
  permissions: string; // JSON array
  active: number;
  rate_limit: number | null;
  created_at: string;
  last_used_at: string | null;
}

export interface SettingRow {
  name: string;
  value: string;
}

export interface ImportProgressRow {
  file_key: string; // absolute path + size + mtime
  line: number; // last line fully processed
  updated_at: string;
}

/** A record `waypost demo` wrote (src/demo/): host writes naming it are refused, `demo --remove` removes it. */
export interface DemoRecordRow {
  resource: string;
  id: number;
}

/** An API key `waypost demo` made: `demo --remove` deletes it with the demo's records. */
export interface DemoApiKeyRow {
  key_id: string;
}

export interface RecordTables {
  trips: TripRow;
  customers: CustomerRow;
  bookings: BookingRow;
  booking_trips: BookingTripRow;
  payments: PaymentRow;
  enquiries: EnquiryRow;
  reviews: ReviewRow;
  record_counts: RecordCountRow;
  api_keys: ApiKeyRow;
  settings: SettingRow;
  import_progress: ImportProgressRow;
  demo_records: DemoRecordRow;
  demo_api_keys: DemoApiKeyRow;
}

export interface Database
  extends RecordTables, WebhookTables, AlertTables, AdminTables, ApiTables, FeedTables, PrivacyTables, AuditTables {}

export type { Generated };

/**
 * The database without its table types, for queries that name their table at run time (the record tables share `id`
 * and `data`) and for code that must not follow today's schema (migrating): Kysely cannot type those.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the one untyped view, named so its uses are found
export type UntypedDb = Kysely<any>;
