// The admin token and a generated host token were kept in settings in clear (`admin_token`, `host_token`): anyone
// with a backup had full admin. Now settings holds only their SHA-256 (`admin_token_hash`, `host_token_hash`,
// src/admin/token.ts, src/host/token.ts); this converts an existing clear token, which keeps working, and deletes
// it. The hash is computed here rather than with the app's helper, so this migration stays as released.
import { hash } from 'node:crypto';
import type { Kysely } from 'kysely';

const RENAMED = [['admin_token', 'admin_token_hash'], ['host_token', 'host_token_hash']] as const;

export async function up(db: Kysely<any>): Promise<void> {
  // Hash first, then delete: interrupted in between (SQLite migrates outside a transaction), a rerun ends the same.
  for (const [clear, hashed] of RENAMED) {
    const row = await db.selectFrom('settings').select('value').where('name', '=', clear).executeTakeFirst();
    if (!row) continue;
    const value = hash('sha256', String(row.value), 'hex');
    await db.insertInto('settings').values({ name: hashed, value })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value })).execute();
    await db.deleteFrom('settings').where('name', '=', clear).execute();
  }
}

// The clear tokens cannot be recovered from their hashes: an earlier version generates new ones on first use.
export async function down(): Promise<void> {}
