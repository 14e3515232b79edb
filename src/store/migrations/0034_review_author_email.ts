// A review's author by e-mail (issue 34): `reviews.author_email_sha256`, a SHA-256 of the e-mail a host sends with
// a review (WordPress comments carry one), indexed, so that an erasure finds the reviews of an e-mail, and not those
// of another person of the same name. Never the e-mail itself; reviews stored before have none and are still found
// by their author's full name.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('reviews').addColumn('author_email_sha256', 'text').execute();
  await db.schema.createIndex('reviews_author_email_sha256').on('reviews').column('author_email_sha256').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('reviews_author_email_sha256').ifExists().execute();
  await db.schema.alterTable('reviews').dropColumn('author_email_sha256').execute();
}
