// Named locks held until the end of a transaction. PostgreSQL: advisory locks (READ COMMITTED lets two
// read-then-write transactions interleave; a lock taken first makes the later one read what the earlier committed).
// SQLite: nothing to do, its write transactions take the database's only write lock up front (BEGIN IMMEDIATE),
// across processes too.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { dialectOf } from './dialect.js';
import type { UntypedDb } from './tables.js';

/** 64-bit advisory lock key of a name (a hash: two names sharing a key only wait for each other). */
function lockKey(name: string): bigint {
  return createHash('sha256').update(name).digest().readBigInt64BE(0);
}

/**
 * Takes the named locks until the transaction ends. Keys are taken in ascending order, so two transactions that need
 * the same keys cannot deadlock; one that learns of a key only after reading may, and PostgreSQL then aborts one of
 * them (40P01), which the caller retries.
 */
export async function lockNames(trx: UntypedDb, names: string[]): Promise<void> {
  if (names.length === 0 || dialectOf(trx) !== 'postgres') return;
  const keys = lockKeys(names);
  // unnest() yields the array in order, one lock per row.
  await sql`SELECT pg_advisory_xact_lock(k) FROM unnest(${keys}::bigint[]) AS k`.execute(trx);
}

/** The advisory lock keys of `names`, without repeats, in the ascending order they must be taken in (as text). */
export function lockKeys(names: string[]): string[] {
  return [...new Set(names.map(lockKey))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(String);
}

/** A read that locks its rows until the transaction ends: FOR UPDATE on PostgreSQL; SQLite's write transaction has. */
export function forUpdate<Q extends { forUpdate(): Q }>(trx: UntypedDb, query: Q): Q {
  return dialectOf(trx) === 'postgres' ? query.forUpdate() : query;
}
