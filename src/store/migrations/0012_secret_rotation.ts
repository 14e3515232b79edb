// Secret rotation with a grace period (DESIGN.md "Secret rotation"): the secret a rotation replaced, stored sealed
// like the current one, and when it stops signing (integer ms since the epoch, compared with the clock per attempt).
import type { Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const bigint = dialectOf(db) === 'postgres' ? 'bigint' : 'integer';
  await db.schema.alterTable('webhooks').addColumn('previous_secret', 'text').execute();
  await db.schema.alterTable('webhooks').addColumn('previous_secret_expires_at', bigint).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').dropColumn('previous_secret_expires_at').execute();
  await db.schema.alterTable('webhooks').dropColumn('previous_secret').execute();
}
