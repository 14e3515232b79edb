// Long polling: `wait` holds an empty answer until a matching event commits and answers within 100 ms of the
// commit, whether this process wrote it (the bus) or another one did (PostgreSQL NOTIFY; SQLite's data_version);
// an event the filter does not take does not end the wait; one watcher serves every waiting request.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { createWaypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { apiFixture, type ApiFixture } from '../api/setup.js';
import { feedWaiters } from '../../src/feed/waiters.js';
import type { Waypost } from '../../src/sdk.js';

const enquiry = (n: number) => ({ full_name: `Cy ${n}`, email: `cy${n}@example.com` });

describe.each(DIALECTS)('long polling the event feed on %s', (dialect) => {
  let f: ApiFixture;
  let other: Waypost | undefined;
  beforeEach(async () => {
    f = await apiFixture(dialect);
  });
  afterEach(async () => {
    await other?.close();
    other = undefined;
    await f.wp.close();
  });

  /** Starts a long poll and resolves once it waits (its first read found nothing). */
  async function waiting(query: string, waiters = 1) {
    const answer = f.get(`/events?${query}`).then((res) => ({ res, at: performance.now() }));
    await expect.poll(() => feedWaiters(f.wp.core).size, { interval: 5, timeout: 10_000 }).toBe(waiters);
    return { answer }; // wrapped: an async function returning a promise would wait for it
  }

  it('answers within 100 ms of the commit of a matching event written by this process', async () => {
    const { answer: pending } = await waiting('wait=10');
    await f.wp.put('enquiries', 1, enquiry(1));
    const committed = performance.now();
    const { res, at } = await pending;
    expect(res.statusCode).toBe(200);
    expect(res.json().map((e: { type: string }) => e.type)).toEqual(['enquiry.created']);
    expect(at - committed).toBeLessThan(100);
  });

  it('answers within 100 ms of a commit by another process on the same database', async () => {
    // A second Waypost on the same database: to this one, its commits are another process's.
    other = await createWaypost({ config: { ...f.wp.config }, env: {}, logger: createLogger('silent') });
    const { answer: pending } = await waiting('wait=10');
    await other.put('enquiries', 2, enquiry(2));
    const committed = performance.now();
    const { res, at } = await pending;
    expect(res.json().map((e: { data: { id: number } }) => e.data.id)).toEqual([2]);
    expect(at - committed).toBeLessThan(100);
  });

  it('keeps waiting past events the filter does not take, and answers [] when the wait ends', async () => {
    const started = performance.now();
    const { answer: reviews } = await waiting('wait=2&types=review.*');
    const { answer: bookingOne } = await waiting('wait=2&record=booking:1', 2);
    await f.wp.put('enquiries', 3, enquiry(3));
    const { res } = await reviews;
    expect(res.json()).toEqual([]);
    expect((await bookingOne).res.json()).toEqual([]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1950);
    expect(feedWaiters(f.wp.core).size).toBe(0);
  });

  it('many waiting requests are released by one commit, each with its page', async () => {
    const polls = [];
    for (let i = 0; i < 50; i++) polls.push(f.get('/events?wait=10&types=enquiry.*'));
    await expect.poll(() => feedWaiters(f.wp.core).size, { interval: 5, timeout: 10_000 }).toBe(50);
    await f.wp.put('enquiries', 4, enquiry(4));
    const answers = await Promise.all(polls);
    expect(new Set(answers.map((r) => r.body)).size).toBe(1);
    expect(answers[0].json()).toHaveLength(1);
  });
});
