// One row of `settings` (name → text): what each capability stores there reads and writes it through these two, so
// a value is replaced the same way everywhere (an upsert, atomic on its own) and `null` removes it.
import type { Kysely } from 'kysely';
import type { Database } from './tables.js';

export async function readSetting(db: Kysely<Database>, name: string): Promise<string | null> {
  const row = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value ?? null;
}

export async function writeSetting(db: Kysely<Database>, name: string, value: string | null): Promise<void> {
  if (value === null) {
    await db.deleteFrom('settings').where('name', '=', name).execute();
    return;
  }
  await db.insertInto('settings').values({ name, value })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value })).execute();
}
