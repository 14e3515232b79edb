// A person's reviews are found by their author's e-mail where the host sent one (the bridge sends a WordPress
// comment's), which Waypost keeps only as a SHA-256 and never shows: a reviewer with no booking is erased by e-mail,
// and another person of the same name who reviewed under another e-mail keeps their name. On both databases.
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { DeliveryWorker } from '../../src/webhooks/index.js';
import { addWebhook } from '../webhooks/engine/fixtures.js';
import { startReceiver, type Receiver } from '../webhooks/engine/receiver.js';

const EMAIL = 'Ines.Duarte@example.pt';

describe.each(DIALECTS)('a reviewer\'s e-mail on %s', (dialect) => {
  let wp: Waypost | null = null;
  let receiver: Receiver | null = null;
  afterEach(async () => {
    await wp?.close();
    await receiver?.close();
    wp = receiver = null;
  });

  const authors = async () => Object.fromEntries((await wp!.core.db.selectFrom('reviews')
    .select(['id', 'data', 'author_email_sha256']).orderBy('id').execute())
    .map((r) => [r.id, { author: JSON.parse(r.data).author_name, hashed: r.author_email_sha256 !== null }]));

  it('finds and erases a reviewer by e-mail, not a namesake with another e-mail, and never shows the e-mail',
    async () => {
      wp = await testWaypost({ dialect });
      receiver = await startReceiver();
      await addWebhook(wp.core, receiver.url, { events: ['review.created'] });
      const app = await wp.app();
      const put = (id: number, body: object) => app.inject({ method: 'PUT', url: `/host/v1/reviews/${id}`,
        headers: HOST_AUTH, payload: { trip_id: 7, ...body } });
      // Hers (as the bridge sends it), hers from before reviews carried e-mails, a namesake's, someone else's.
      expect((await put(1, { author_name: 'Ines Duarte', author_email: EMAIL, content: 'Loved it.' })).statusCode)
        .toBe(201);
      await put(2, { author_name: 'Ines Duarte', content: 'Again!' });
      await put(3, { author_name: 'Ines Duarte', author_email: 'ines.d@example.com', content: 'Meh.' });
      await put(4, { author_name: 'Tomas Berg', author_email: 'tomas@example.com', content: 'Good.' });
      expect((await put(5, { author_name: 'X Y', author_email: 'not an e-mail' })).json())
        .toMatchObject({ code: 'invalid_field', field: 'author_email' });
      // A review stored without an e-mail gets it when sent again (a backfill), without another review.created.
      await put(6, { author_name: 'Old Timer' });
      expect((await put(6, { author_name: 'Old Timer', author_email: 'old@example.org' })).statusCode).toBe(200);

      // Neither the e-mail nor its hash leaves Waypost: not in a payload, not in a record as answered.
      await new DeliveryWorker(wp.core).drain();
      const bodies = receiver.requests.map((r) => r.raw.toString()).join('\n');
      expect(receiver.requests).toHaveLength(5);
      expect(bodies).not.toMatch(/example\.(pt|com|org)|author_email/i);
      const answer = (await put(1, { author_name: 'Ines Duarte', author_email: EMAIL, content: 'Loved it.' })).json();
      expect(Object.keys(answer.record).sort()).toEqual(
        ['author_name', 'content', 'created_at', 'id', 'rating', 'trip_id']);

      const exported = (await app.inject({ method: 'POST', url: '/host/v1/exports', headers: HOST_AUTH,
        payload: { email: EMAIL.toUpperCase() } })).json();
      expect(exported.records.reviews.map((r: { id: number }) => r.id)).toEqual([1, 2]);
      expect(JSON.stringify(exported)).not.toMatch(/author_email/);

      const started = await app.inject({ method: 'POST', url: '/host/v1/erasures', headers: HOST_AUTH,
        payload: { email: EMAIL } });
      expect(started.statusCode).toBe(202);
      const job = async () => (await app.inject({ url: started.headers.location as string, headers: HOST_AUTH }))
        .json();
      await expect.poll(async () => (await job()).status, { timeout: 15_000 }).toBe('succeeded');
      expect((await job()).counts).toMatchObject({ customers: 0, reviews: 2 });
      expect(await authors()).toEqual({
        1: { author: 'Anonymous', hashed: false }, 2: { author: 'Anonymous', hashed: false },
        3: { author: 'Ines Duarte', hashed: true }, 4: { author: 'Tomas Berg', hashed: true },
        6: { author: 'Old Timer', hashed: true },
      });
    });

  it('erases a review stored before 0030 under a name with an accented capital, which SQL lower-cased as "émile"'
    + ' on PostgreSQL but not on SQLite', async () => {
    wp = await testWaypost({ dialect });
    const app = await wp.app();
    const put = (path: string, body: object) => app.inject({ method: 'PUT', url: `/host/v1/${path}`,
      headers: HOST_AUTH, payload: body });
    await put('customers/9', { email: 'emile@example.fr', first_name: 'Émile', last_name: 'Ørsted' });
    await put('reviews/8', { trip_id: 7, author_name: 'Émile Ørsted', content: 'Superbe.' });
    await put('reviews/9', { trip_id: 7, author_name: 'Someone Else', content: 'Fine.' });
    // As migration 0030 filled the column for reviews stored before it.
    const lower = dialect === 'sqlite' ? sql`lower(json_extract(data, '$.author_name'))`
      : sql`lower(data::json->>'author_name')`;
    await sql`UPDATE reviews SET author = ${lower}`.execute(wp.core.db);
    const started = await app.inject({ method: 'POST', url: '/host/v1/erasures', headers: HOST_AUTH,
      payload: { email: 'EMILE@example.fr' } });
    const job = async () => (await app.inject({ url: started.headers.location as string, headers: HOST_AUTH }))
      .json();
    await expect.poll(async () => (await job()).status, { timeout: 15_000 }).toBe('succeeded');
    expect((await job()).counts).toMatchObject({ customers: 1, reviews: 1 });
    expect(await authors()).toEqual({ 8: { author: 'Anonymous', hashed: false },
      9: { author: 'Someone Else', hashed: false } });
  });
});
