// What every capability receives: configuration, the store, a logger, a clock, an in-process bus and the
// extension points. Built once by createWaypost() (src/sdk.ts); tests build their own with their own clock.
import { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Store } from './store/db.js';
import type { Database } from './store/tables.js';
import type { Resource } from './records/schemas.js';
import type { RecordChange } from './host/changes.js';
import type { KnownCommonSearches } from './api/search-memo.js';

export type { RecordChange };

/** Injectable time: the worker's schedule, leases and the rate limiter read it; tests pass a fake. */
export interface Clock {
  now(): number; // ms since the epoch
}
export const systemClock: Clock = { now: () => Date.now() };

/** A change hook run inside the write transaction (transactional outbox): the webhooks capability records events. */
export type WriteListener = (trx: Kysely<Database>, change: RecordChange, core: Core) => Promise<void>;

/** Filters that in-process hosts may install through the SDK (DESIGN.md "Extension points"). */
export interface Filters {
  webhookPayload?: (
    payload: Record<string, unknown>, ctx: { webhookId: string; eventType: string; deliveryId: string },
  ) => Record<string, unknown> | Promise<Record<string, unknown>>;
  suppressFailureEmail?: (ctx: {
    webhookId: string; webhookName: string; eventType: string; attempt: number; level: 'warning' | 'critical';
  }) => boolean | Promise<boolean>;
}

export interface BusEvents {
  /** After commit: these resources changed (the API cache invalidates them). */
  'records.changed': [resources: Resource[]];
  /** After commit: an API key was disabled, re-enabled or deleted (the API drops the keys it holds). */
  'api_keys.changed': [];
  /** After commit: new deliveries are due now (the worker wakes). */
  'deliveries.queued': [];
}

export class Bus extends EventEmitter<BusEvents> {}

/** The console's settings as capabilities read them (kept by src/admin/settings.ts, which Core's builder wires in). */
export interface SettingsReader {
  /** Where failure alerts go: the setting, ALERT_EMAIL, or the first admin's address; null when none is known. */
  alertEmail(): Promise<string | null>;
  logRetentionDays(): Promise<number>;
  /** How long attempts keep the payload sent and the receiver's answer; null: as long as the delivery. */
  bodyRetentionDays(): Promise<{ payload: number | null; response: number | null }>;
  /** How long the audit log keeps an entry: the setting, else WAYPOST_AUDIT_RETENTION_DAYS. */
  auditRetentionDays(): Promise<number>;
}

export interface Core {
  readonly config: Config;
  readonly store: Store;
  readonly db: Kysely<Database>;
  readonly log: Logger;
  readonly clock: Clock;
  readonly bus: Bus;
  readonly writeListeners: WriteListener[];
  readonly filters: Filters;
  readonly settings: SettingsReader;
  /** The searches a probe of the API found common lately (src/api/search-memo.ts), so their lists skip the probe. */
  readonly knownCommon: KnownCommonSearches;
  /**
   * The newest `limit` records of one kind that the REST API's `search` finds (src/api/search-ids.ts), and whether
   * more hold it: how the delivery log finds deliveries by e-mail, name or trip without a search index of its own.
   */
  readonly findRecordIds: FindRecordIds;
}

type Searched = 'trips' | 'customers' | 'bookings' | 'payments';
export type FindRecordIds = (
  resource: Searched, search: string, limit: number,
) => Promise<{ ids: number[]; more: boolean }>;
