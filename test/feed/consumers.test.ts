// Server-kept positions: POST /events/ack moves a key's consumer forward (never back), GET /events?consumer=NAME
// resumes right after it without a cursor, per API key; an unknown consumer is a 400 naming `consumer`. And the
// contract no-code polling triggers rely on: order=desc is newest first, ids stay the same, and following the pages
// while events arrive hands out no event twice.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { apiFixture, authOf, parseLinks, relative, type ApiFixture } from '../api/setup.js';
import { createApiKey } from '../../src/api/keys.js';

const enquiry = (n: number) => ({ full_name: `Cy ${n}`, email: `cy${n}@example.com` });

describe.each(DIALECTS)('feed consumers and polling triggers on %s', (dialect) => {
  let f: ApiFixture;
  beforeEach(async () => {
    f = await apiFixture(dialect);
  });
  afterEach(async () => f.wp.close());

  const ids = (res: { json(): unknown }) => (res.json() as Array<{ id: string }>).map((e) => e.id);
  const ack = (consumer: string, eventId: string, headers = f.auth) => f.app.inject({
    method: 'POST', url: `${f.root}/events/ack`, headers, payload: { consumer, event_id: eventId },
  });

  it('a restarted consumer resumes right after what it acknowledged, per key, never moving back', async () => {
    for (let n = 1; n <= 5; n++) await f.wp.put('enquiries', n, enquiry(n));
    const all = ids(await f.get('/events'));
    expect((await f.get('/events?consumer=crm')).json().parameter).toBe('consumer');

    const first = await ack('crm', all[1]);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ consumer: 'crm', event_id: all[1] });
    expect(ids(await f.get('/events?consumer=crm'))).toEqual(all.slice(2));
    await ack('crm', all[3]);
    await ack('crm', all[0]); // late and older: ignored
    expect(ids(await f.get('/events?consumer=crm'))).toEqual(all.slice(4));

    const other = await createApiKey(f.wp.core, { label: 'other', permissions: ['events.list'] });
    expect((await f.get('/events?consumer=crm', authOf(other))).statusCode).toBe(400);
    expect((await ack('crm', 'evt_00000000000000000000000000ff')).json().parameter).toBe('event_id');
    expect((await ack('no spaces', all[0])).statusCode).toBe(400);
    expect((await f.get('/events?consumer=crm&order=desc')).json().parameter).toBe('consumer');
    // Other methods stay 405.
    expect((await f.app.inject({ method: 'POST', url: `${f.root}/events` })).statusCode).toBe(405);
  });

  it('acknowledgements racing each other leave the newest position', async () => {
    for (let n = 1; n <= 8; n++) await f.wp.put('enquiries', n, enquiry(n));
    const all = ids(await f.get('/events'));
    const answers = await Promise.all(all.map((id) => ack('sync', id)));
    expect(answers.every((r) => r.statusCode === 200)).toBe(true);
    expect(ids(await f.get('/events?consumer=sync'))).toEqual([]);
    const row = await f.wp.core.db.selectFrom('feed_consumers').selectAll().executeTakeFirstOrThrow();
    expect(row.event_id).toBe(all.at(-1));
  });

  it('order=desc: newest first, ids stable, no event twice across pages while events arrive', async () => {
    for (let n = 1; n <= 6; n++) await f.wp.put('enquiries', n, enquiry(n));
    const first = await f.get('/events?order=desc&perpage=4');
    const newest = ids(first);
    expect(newest).toHaveLength(4);
    expect([...newest].sort().reverse()).toEqual(newest);
    // Events arrive between the pages: the next page still goes on to the older ones only.
    for (let n = 7; n <= 9; n++) await f.wp.put('enquiries', n, enquiry(n));
    const rest = ids(await f.get(relative(parseLinks(first.headers.link).next, f.root)));
    expect(rest).toHaveLength(2);
    expect(rest.filter((id) => newest.includes(id))).toEqual([]);
    // A trigger polling again sees the three new ones on top, and the ids it saw before unchanged.
    const again = ids(await f.get('/events?order=desc&perpage=4'));
    expect(again.slice(3)).toEqual(newest.slice(0, 1));
    expect(new Set([...again, ...newest, ...rest]).size).toBe(9);
  });
});
