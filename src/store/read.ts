// Runs hot-path queries that Kysely built and compiled (the API's reads, the worker's claims and loads). On SQLite
// the statement comes from the connection's prepared-statement cache (src/store/db.ts) and runs at once, without
// Kysely's executor and connection queue. The statements run synchronously on the shared connection, so only when
// no transaction is open on it; on PostgreSQL, and inside a transaction, the query goes through Kysely.
import type { CompiledQuery } from 'kysely';
import type { Core } from '../core.js';

export async function readRows<T>(core: Core, query: CompiledQuery): Promise<T[]> {
  const { sqlite, statement } = core.store;
  // While a write transaction holds the one connection, go through Kysely, which waits for it: reading beside it
  // would see (and could cache) rows that are not committed yet.
  if (!sqlite || !statement || sqlite.inTransaction) return (await core.db.executeQuery<T>(query)).rows;
  return statement(query.sql).all(query.parameters as unknown[]) as T[];
}
