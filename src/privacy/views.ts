// The JSON shapes of the privacy doors (erasures, their preview). They import nothing, so the console (web/) compiles
// these very types (src/admin/console-types.ts).

export type ErasureStep = 'finding' | 'deliveries' | 'events' | 'records' | 'caches' | 'compacting' | 'done';

export interface ErasureCounts {
  customers: number; bookings: number; payments: number; enquiries: number; reviews: number;
  events: number; deliveries: number; attempts: number;
}

/** A webhook that was sent the person's data before the erasure: the site owner passes the request on. */
export interface ReceivedBy {
  id: string; name: string; url: string; deliveries: number; deleted: boolean;
}

export interface ErasureView {
  id: string;
  status: 'running' | 'succeeded' | 'failed' | 'interrupted';
  step: ErasureStep;
  email_sha256: string | null;
  customer_id: number | null;
  /** Who asked, as the audit log names them: a console user, a WordPress sign-in, the CLI, or the host token. */
  requested_by: 'admin' | 'wordpress' | 'cli' | 'host';
  requester: string | null;
  counts: ErasureCounts;
  webhooks: ReceivedBy[];
  event_id: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** What an erasure would erase: the console's confirm dialog says it before anything goes. */
export interface ErasurePreview {
  email_sha256: string | null;
  customers: number; bookings: number; enquiries: number; reviews: number; events: number; deliveries: number;
  /** The webhooks already sent their data: an erasure cannot recall it; the site owner passes the request on. */
  webhooks: ReceivedBy[];
}
