// What tells a process that another connection committed to the same database: on SQLite, `PRAGMA data_version`
// and the change counters (migration 0005, bumped by triggers); PostgreSQL has no such counter (null).
import type SqliteDatabase from 'better-sqlite3';

export interface ChangeSource {
  /** Changes when any other connection commits. */
  version(): number;
  /** The change counters' rows, read by `countersSql`. */
  counters(): unknown[];
}

/** The change source of a SQLite connection, its statements prepared once (this runs on every request). */
export function sqliteChanges(sqlite: SqliteDatabase.Database) {
  return (countersSql: string): ChangeSource => {
    const version = sqlite.prepare('PRAGMA data_version').pluck();
    const counters = sqlite.prepare(countersSql);
    return { version: () => Number(version.get()), counters: () => counters.all() };
  };
}
