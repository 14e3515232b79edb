// PostgreSQL only: every change to what an API request relies on in api_keys NOTIFYs the channel
// `waypost_api_keys` (delivered at commit), whoever writes it: the admin API, `waypost keys disable`, another
// process, plain SQL. API processes hold the keys they read in memory and drop them on this notification
// (src/api/key-lookup.ts), instead of reading the key from the database on every request. One notification per
// statement: a change is rare, and it drops every held key. last_used_at (written once a minute per key in use)
// and the label notify nothing. SQLite has change counters for the same purpose (migration 0005).
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

/** The channel (src/api/key-lookup.ts LISTENs on it); frozen here with the migration. */
const CHANNEL = 'waypost_api_keys';

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`CREATE FUNCTION waypost_api_keys_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_notify(${sql.lit(CHANNEL)}, ''); RETURN NULL; END $$`.execute(db);
  await sql`CREATE TRIGGER api_keys_notify
    AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF key, secret_hash, permissions, active, rate_limit ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION waypost_api_keys_notify()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`DROP TRIGGER IF EXISTS api_keys_notify ON api_keys`.execute(db);
  await sql`DROP FUNCTION IF EXISTS waypost_api_keys_notify()`.execute(db);
}
