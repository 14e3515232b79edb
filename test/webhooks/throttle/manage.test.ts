// The throttle through the admin JSON API (SQLite and PostgreSQL): max_per_second on create, set and cleared by
// PATCH, shown in every webhook shape; anything but a whole number 1-1000 or null is a 400 naming the field.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../../helpers/db.js';
import type { Waypost } from '../../../src/sdk.js';
import { closeAdminSuite, openAdminSuite, type Receiver } from '../manage/fixtures.js';

describe.each(DIALECTS)('webhook throttle in the admin API on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let auth: Record<string, string>;
  let receiver: Receiver;

  beforeEach(async () => ({ wp, app, auth, receiver } = await openAdminSuite(dialect)));
  afterEach(async () => closeAdminSuite({ wp, receiver }));

  const body = (over: Record<string, unknown>) =>
    ({ name: 'Small CRM', url: receiver.url, events: ['booking.created'], ...over });
  const post = (over: Record<string, unknown>) =>
    app.inject({ method: 'POST', url: '/admin/api/webhooks', headers: auth, payload: body(over) });
  const patch = (id: string, payload: Record<string, unknown>) =>
    app.inject({ method: 'PATCH', url: `/admin/api/webhooks/${id}`, headers: auth, payload });
  const get = async (id: string) =>
    (await app.inject({ method: 'GET', url: `/admin/api/webhooks/${id}`, headers: auth })).json();

  it('is unlimited (null) unless given; create, PATCH set and PATCH null clear it; lists show it', async () => {
    const plain = await post({});
    expect(plain.statusCode).toBe(201);
    expect(plain.json().max_per_second).toBeNull();
    const limited = await post({ max_per_second: 20 });
    expect(limited.json()).toMatchObject({ max_per_second: 20 });
    const id = limited.json().id as string;
    expect(await get(id)).toMatchObject({ max_per_second: 20 });

    expect((await patch(id, { max_per_second: 1000 })).json()).toMatchObject({ max_per_second: 1000 });
    expect((await patch(id, { name: 'Renamed' })).json()).toMatchObject({ name: 'Renamed', max_per_second: 1000 });
    const list = await app.inject({ method: 'GET', url: '/admin/api/webhooks', headers: auth });
    expect(list.json().map((w: { max_per_second: number | null }) => w.max_per_second)).toEqual([null, 1000]);
    expect((await patch(id, { max_per_second: null })).json()).toMatchObject({ max_per_second: null });
    expect(await get(id)).toMatchObject({ max_per_second: null });
  });

  it('refuses anything but a whole number from 1 to 1000 or null, with a 400 naming the field', async () => {
    const id = (await post({ max_per_second: 5 })).json().id as string;
    for (const bad of [0, -1, 1001, 2.5, '10', true, [], {}]) {
      for (const res of [await post({ max_per_second: bad }), await patch(id, { max_per_second: bad })]) {
        expect(res.statusCode).toBe(400);
        expect(res.headers['content-type']).toContain('application/problem+json');
        expect(res.json()).toMatchObject({ code: 'invalid_field', field: 'max_per_second' });
        expect(res.json().detail).toContain('from 1 to 1000');
      }
    }
    expect(await get(id)).toMatchObject({ max_per_second: 5 });
    expect(await wp.core.db.selectFrom('webhooks').select('id').execute()).toHaveLength(1);
  });

  it('a changed limit starts afresh: slots reserved at the old rate are forgotten', async () => {
    const id = (await post({ max_per_second: 1 })).json().id as string;
    const later = wp.core.clock.now() + 60_000;
    await wp.core.db.insertInto('webhook_throttle').values({ webhook_id: id, next_slot_ms: later }).execute();
    await patch(id, { name: 'Same limit' });
    expect(await wp.core.db.selectFrom('webhook_throttle').selectAll().execute()).toHaveLength(1);
    await patch(id, { max_per_second: 50 });
    expect(await wp.core.db.selectFrom('webhook_throttle').selectAll().execute()).toEqual([]);
  });
});
