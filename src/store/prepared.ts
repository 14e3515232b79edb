// Hot-path queries built and compiled by Kysely once (typed, like every other query), then run many times with
// fresh values: values that change per run are written into the query as slot('name') markers; each run replaces
// them. prepareRun runs a write on SQLite from the connection's prepared-statement cache (src/store/db.ts), without
// Kysely's executor; withValues gives the compiled query with its slots filled, for readRows (src/store/read.ts) or
// Kysely on either dialect.
import type { CompiledQuery } from 'kysely';
import type { WriteStep } from './sqlite-writer.js';

const SLOT = '\u0000slot:';

/** A marker for a value given at each run of a prepared statement. */
export const slot = (name: string): string => `${SLOT}${name}`;

/** `count` slots named `${name}0`, `${name}1`, …: a list (`where id in (…)`) of a given length. */
export const slots = (name: string, count: number): string[] =>
  Array.from({ length: count }, (_, i) => slot(`${name}${i}`));

/** The values of a list for the slots made by slots(name, values.length). */
export function listValues(
  name: string, values: readonly unknown[], into: Record<string, unknown> = {},
): Record<string, unknown> {
  for (let i = 0; i < values.length; i++) into[`${name}${i}`] = values[i];
  return into;
}

/** A query compiled once with slots, filled per run. */
export function withValues(query: CompiledQuery): (values: Record<string, unknown>) => CompiledQuery {
  const names = slotNames(query);
  // A literal, not a spread of the query: this runs per statement on the worker's hot path.
  return (values) => ({
    query: query.query, queryId: query.queryId, sql: query.sql,
    parameters: names.map((name, i) => (name === null ? query.parameters[i] : values[name])),
  });
}

function slotNames(query: CompiledQuery): Array<string | null> {
  return query.parameters.map((p) => (typeof p === 'string' && p.startsWith(SLOT) ? p.slice(SLOT.length) : null));
}

/** A compiled query as a step for the SQLite writer thread (src/store/sqlite-writer.ts): its text and values only. */
export function step(query: CompiledQuery, returns = false): WriteStep {
  return { sql: query.sql, parameters: query.parameters, returns };
}
