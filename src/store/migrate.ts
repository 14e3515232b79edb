// Versioned migrations, run by `waypost migrate` and on every start. Migrations are frozen once released.
import { Migrator, sql, type DatabaseIntrospector, type Migration } from 'kysely';
import { dialectOf } from './dialect.js';
import type { UntypedDb } from './tables.js';
import * as m0001 from './migrations/0001_records.js';
import * as m0002 from './migrations/0002_webhooks.js';
import * as m0003 from './migrations/0003_api_usage.js';
import * as m0004 from './migrations/0004_admin.js';
import * as m0005 from './migrations/0005_change_counters.js';
import * as m0006 from './migrations/0006_token_hashes.js';
import * as m0007 from './migrations/0007_assigned_customer_ids.js';
import * as m0008 from './migrations/0008_sign_in_links.js';
import * as m0009 from './migrations/0009_list_indexes.js';
import * as m0010 from './migrations/0010_delivery_search.js';
import * as m0011 from './migrations/0011_bulk_load.js';
import * as m0012 from './migrations/0012_secret_rotation.js';
import * as m0013 from './migrations/0013_webhook_throttle.js';
import * as m0014 from './migrations/0014_recover_jobs.js';
import * as m0015 from './migrations/0015_deliveries_fillfactor.js';
import * as m0016 from './migrations/0016_api_key_notify.js';
import * as m0017 from './migrations/0017_recover_counting.js';
import * as m0018 from './migrations/0018_search_statistics.js';
import * as m0019 from './migrations/0019_api_key_notify_no_insert.js';
import * as m0020 from './migrations/0020_wordpress_sign_in_binding.js';
import * as m0021 from './migrations/0021_demo_records.js';
import * as m0022 from './migrations/0022_event_previous_attributes.js';
import * as m0023 from './migrations/0023_webhook_filters.js';
import * as m0024 from './migrations/0024_record_ordering.js';
import * as m0025 from './migrations/0025_delivery_stats.js';
import * as m0026 from './migrations/0026_event_trace_context.js';
import * as m0027 from './migrations/0027_event_feed.js';
import * as m0028 from './migrations/0028_webhook_off_periods.js';
import * as m0029 from './migrations/0029_event_indexes.js';
import * as m0030 from './migrations/0030_privacy.js';
import * as m0031 from './migrations/0031_audit_log.js';
import * as m0032 from './migrations/0032_webhook_payload.js';
import * as m0033 from './migrations/0033_audit_action_actor_index.js';
import * as m0034 from './migrations/0034_review_author_email.js';
import * as m0035 from './migrations/0035_past_subjects.js';

const MIGRATIONS: Record<string, Migration> = {
  '0001_records': m0001,
  '0002_webhooks': m0002,
  '0003_api_usage': m0003,
  '0004_admin': m0004,
  '0005_change_counters': m0005,
  '0006_token_hashes': m0006,
  '0007_assigned_customer_ids': m0007,
  '0008_sign_in_links': m0008,
  '0009_list_indexes': m0009,
  '0010_delivery_search': m0010,
  '0011_bulk_load': m0011,
  '0012_secret_rotation': m0012,
  '0013_webhook_throttle': m0013,
  '0014_recover_jobs': m0014,
  '0015_deliveries_fillfactor': m0015,
  '0016_api_key_notify': m0016,
  '0017_recover_counting': m0017,
  '0018_search_statistics': m0018,
  '0019_api_key_notify_no_insert': m0019,
  '0020_wordpress_sign_in_binding': m0020,
  '0021_demo_records': m0021,
  '0022_event_previous_attributes': m0022,
  '0023_webhook_filters': m0023,
  '0024_record_ordering': m0024,
  '0025_delivery_stats': m0025,
  '0026_event_trace_context': m0026,
  '0027_event_feed': m0027,
  '0028_webhook_off_periods': m0028,
  '0029_event_indexes': m0029,
  '0030_privacy': m0030,
  '0031_audit_log': m0031,
  '0032_webhook_payload': m0032,
  '0033_audit_action_actor_index': m0033,
  '0034_review_author_email': m0034,
  '0035_past_subjects': m0035,
};

export async function migrate(db: UntypedDb): Promise<string[]> {
  if (dialectOf(db) === 'postgres') {
    // pg_trgm serves `search`; creating it twice at once races, so tolerate "already exists".
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public`.execute(db).catch((err: { code?: string }) => {
      if (err.code !== '23505' && err.code !== '42710') throw err;
    });
  }
  // On PostgreSQL, keep Kysely's bookkeeping tables in the schema we migrate (the first on the search_path).
  const schema = dialectOf(db) === 'postgres'
    ? (await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(db)).rows[0]?.schema
    : undefined;
  const migrator = new Migrator({
    db: schema ? seeingOnly(db, schema) : db, provider: { getMigrations: async () => MIGRATIONS },
    migrationTableSchema: schema,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Kysely's Migrator looks for its two bookkeeping tables by listing every table, with its columns, of every schema
 * on the server, four times per run. On a PostgreSQL database with many schemas (a test server keeps one per test:
 * 550 schemas, 90,000 catalog rows) that took 6-7 s per start instead of under one. This hands it an introspector
 * that sees only the schema being migrated, which is all it asks about.
 */
function seeingOnly(db: UntypedDb, schema: string): UntypedDb {
  const introspection: DatabaseIntrospector = {
    getSchemas: async () => (await sql<{ name: string }>`
      SELECT nspname AS name FROM pg_namespace WHERE nspname = ${schema}`.execute(db)).rows,
    getTables: async () => (await sql<{ name: string }>`
      SELECT tablename AS name FROM pg_tables WHERE schemaname = ${schema}`.execute(db)).rows
      .map(({ name }) => ({ name, schema, isView: false, columns: [] })),
    getMetadata: async () => ({ tables: await introspection.getTables() }),
  };
  // Kysely keeps its state in private fields, so every other member is the real instance's, bound to it.
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'introspection') return introspection;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
