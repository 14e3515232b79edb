// Runs hot-path queries that Kysely built and compiled (the API's reads, the worker's claims and loads). On SQLite
// the statement is then prepared once per distinct SQL text and reused: Kysely's driver prepares on every query, a
// large share of a cheap one. The statements run synchronously on the shared connection, so only when no
// transaction is open on it; on PostgreSQL, and inside a transaction, the query goes through Kysely.
import type { CompiledQuery } from 'kysely';
import type { Core } from '../core.js';

type Statement = ReturnType<NonNullable<Core['store']['sqlite']>['prepare']>;
const MAX_STATEMENTS = 500; // distinct shapes are bounded (filters x sort x paging, id-list lengths); a safety net
const statements = new WeakMap<object, Map<string, Statement>>();

export async function readRows<T>(core: Core, query: CompiledQuery): Promise<T[]> {
  const sqlite = core.store.sqlite;
  // While a write transaction holds the one connection, go through Kysely, which waits for it: reading beside it
  // would see (and could cache) rows that are not committed yet.
  if (!sqlite || sqlite.inTransaction) return (await core.db.executeQuery<T>(query)).rows;
  let cache = statements.get(sqlite);
  if (!cache) statements.set(sqlite, (cache = new Map()));
  let stmt = cache.get(query.sql);
  if (!stmt) {
    if (cache.size >= MAX_STATEMENTS) cache.clear();
    stmt = sqlite.prepare(query.sql);
    cache.set(query.sql, stmt);
  }
  return stmt.all(query.parameters as unknown[]) as T[];
}
