// PostgreSQL only: a new API key no longer NOTIFYs `waypost_api_keys`. API processes hold only keys that exist
// (never an unknown token), so an insert cannot make anything they hold wrong; yet its notification dropped every
// held key, and reached each process at an unknown moment after the commit: a key created and used at once could
// be read, held, then dropped by its own creation's notification. Deletes, truncates and the updates that matter
// still notify (migration 0016).
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`DROP TRIGGER IF EXISTS api_keys_notify ON api_keys`.execute(db);
  await sql`CREATE TRIGGER api_keys_notify
    AFTER DELETE OR TRUNCATE OR UPDATE OF key, secret_hash, permissions, active, rate_limit ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION waypost_api_keys_notify()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`DROP TRIGGER IF EXISTS api_keys_notify ON api_keys`.execute(db);
  await sql`CREATE TRIGGER api_keys_notify
    AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF key, secret_hash, permissions, active, rate_limit ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION waypost_api_keys_notify()`.execute(db);
}
