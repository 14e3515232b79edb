// Runs the API's read queries. Kysely builds and compiles them; on SQLite the statement is then prepared once per
// distinct SQL text and reused (Kysely's driver prepares on every query, a large share of a cheap read).
import type { CompiledQuery } from 'kysely';
import type { Core } from '../core.js';

type Statement = ReturnType<NonNullable<Core['store']['sqlite']>['prepare']>;
const MAX_STATEMENTS = 500; // distinct list shapes are bounded (filters x sort x paging); this is a safety net
const statements = new WeakMap<object, Map<string, Statement>>();

export async function readRows<T>(core: Core, query: CompiledQuery): Promise<T[]> {
  const sqlite = core.store.sqlite;
  if (!sqlite) return (await core.db.executeQuery<T>(query)).rows;
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
