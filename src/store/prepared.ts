// Hot-path writes on SQLite: a statement Kysely built and compiled once (typed, like every other query), taken from
// the connection's prepared-statement cache (src/store/db.ts), then run with fresh values, without Kysely's
// executor. Values that change per run are written into the query as slot('name') markers; each run replaces them.
// PostgreSQL keeps going through Kysely.
import type { CompiledQuery } from 'kysely';
import type SqliteDatabase from 'better-sqlite3';

const SLOT = '\u0000slot:';

/** A marker for a value given at each run of a prepared statement. */
export const slot = (name: string): string => `${SLOT}${name}`;

export type PreparedRun = (values: Record<string, unknown>) => void;

export function prepareRun(statementFor: (sql: string) => SqliteDatabase.Statement, query: CompiledQuery): PreparedRun {
  const statement = statementFor(query.sql);
  const names = query.parameters.map((p) => (typeof p === 'string' && p.startsWith(SLOT) ? p.slice(SLOT.length) : null));
  const fixed = [...query.parameters];
  return (values) => {
    const params = names.map((name, i) => (name === null ? fixed[i] : values[name]));
    statement.run(params);
  };
}
