// PostgreSQL parts of the importer's batch write (src/host/bulk.ts, import-writes.ts; bulk-schema.ts names them): few
// round trips per batch. Each statement waits for the server in turn: ten-odd per batch cost more than their work.
import { CompiledQuery, type Kysely } from 'kysely';
import { lockKeys } from './locks.js';
import type { Database } from './tables.js';

/**
 * A PostgreSQL import batch's transaction settings, sent with its BEGIN. It need not wait for its WAL flush: a crash
 * loses at most the last batches, and with them the progress marker of the same transaction, so a re-run writes
 * them again. (SQLite's WAL does not sync either.)
 */
export const PG_BATCH_SETTINGS = 'SET LOCAL synchronous_commit = off';

/**
 * A batch's transaction on one connection: BEGIN, its settings and its advisory locks (src/store/locks.ts) go in one
 * round trip (the simple query protocol takes several statements; the keys are integers, written as literals), then
 * `body`, then COMMIT, or ROLLBACK when anything failed.
 */
export async function pgBatchTransaction<T>(db: Kysely<Database>, names: string[],
  body: (conn: Kysely<Database>) => Promise<T>): Promise<T> {
  const keys = lockKeys(names);
  const lock = keys.length ? `; SELECT pg_advisory_xact_lock(k) FROM unnest('{${keys.join(',')}}'::bigint[]) AS k` : '';
  return await db.connection().execute(async (conn) => {
    try {
      await conn.executeQuery(CompiledQuery.raw(`BEGIN; ${PG_BATCH_SETTINGS}${lock}`));
      const result = await body(conn);
      await conn.executeQuery(CompiledQuery.raw('COMMIT'));
      return result;
    } catch (err) {
      await conn.executeQuery(CompiledQuery.raw('ROLLBACK')).catch(() => undefined);
      throw err;
    }
  });
}

/** Parameters per combined statement (PostgreSQL's limit is 65,535). */
const MAX_PARAMETERS = 30_000;

/**
 * A batch's writes as few statements: consecutive INSERTs (rows, trip links, totals) become one statement with one
 * data-modifying WITH clause each, so a batch's writes take one round trip instead of one per table. Any other
 * statement (a DELETE of replaced trip links) stays on its own, in its place, so the INSERTs after it see it.
 */
export function combineWrites(statements: readonly CompiledQuery[]): CompiledQuery[] {
  const out: CompiledQuery[] = [];
  let group: CompiledQuery[] = [];
  let size = 0;
  const close = () => {
    if (group.length === 1) out.push(group[0]);
    if (group.length > 1) out.push(withClauses(group));
    group = [];
    size = 0;
  };
  for (const q of statements) {
    if (!/^insert /i.test(q.sql)) {
      close();
      out.push(q);
      continue;
    }
    if (size + q.parameters.length > MAX_PARAMETERS) close();
    group.push(q);
    size += q.parameters.length;
  }
  close();
  return out;
}

function withClauses(group: CompiledQuery[]): CompiledQuery {
  const parameters: unknown[] = [];
  const parts = group.map((q) => {
    const offset = parameters.length;
    parameters.push(...q.parameters);
    return offset ? q.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`) : q.sql;
  });
  const last = parts.pop()!;
  return CompiledQuery.raw(`WITH ${parts.map((p, i) => `w${i} AS (${p})`).join(', ')} ${last}`, parameters);
}
