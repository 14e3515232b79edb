// A host write whose database connection dies under it (a failover, pg_terminate_backend) is run once more on a fresh
// connection, so one drop is invisible to the host: the same answer, the record written once, each event fired once,
// whether the connection died before COMMIT was sent or after (when the first attempt may have committed). A second
// drop in a row answers 503 with Retry-After. The drops are made by a stand-in for the transaction builder that
// throws what pg throws for a terminated backend, after the real transaction ran or rolled back.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { isDroppedConnection } from '../../src/errors.js';
import { addWebhook, booking } from '../webhooks/engine/fixtures.js';

/**
 * Where a drop cuts a transaction: before its COMMIT (rolled back), after it (committed, answer lost), or at BEGIN
 * (`stale`: the pool handed out a connection that had died while idle).
 */
type Cut = 'before-commit' | 'after-commit' | 'stale' | 'busy' | 'none';

const terminated = () => Object.assign(new Error('terminating connection due to administrator command'),
  { code: '57P01' });
const lostAnswer = () => new Error('Connection terminated unexpectedly');
const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

/** The next write transactions are cut as `cuts` says, one each; returns how many transactions began. */
function cutTransactions(wp: Waypost, cuts: Cut[]): { began: number } {
  const db = wp.core.db;
  const original = db.transaction.bind(db);
  const count = { began: 0 };
  type Body = Parameters<ReturnType<typeof original>['execute']>[0];
  (db as unknown as { transaction: unknown }).transaction = () => {
    const builder = original();
    return {
      execute: async (body: Body) => {
        count.began++;
        const cut = cuts.shift();
        if (cut === undefined || cut === 'none') return builder.execute(body);
        if (cut === 'stale') throw lostAnswer();
        if (cut === 'after-commit') {
          await builder.execute(body);
          throw lostAnswer();
        }
        return builder.execute(async (trx) => {
          await body(trx);
          throw cut === 'busy' ? busy() : terminated();
        });
      },
    };
  };
  return count;
}

describe.each(DIALECTS)('host writes through a dropped database connection on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  beforeEach(async () => {
    wp = await testWaypost({ dialect });
    app = await wp.app();
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook');
  });
  afterEach(async () => wp.close());

  const put = (url: string, payload: object) => app.inject({ method: 'PUT', url, headers: HOST_AUTH, payload });
  const del = (url: string) => app.inject({ method: 'DELETE', url, headers: HOST_AUTH });
  const eventTypes = async () =>
    (await wp.core.db.selectFrom('events').select(['type', 'record_id']).orderBy('id').execute())
      .map((e) => `${e.type} ${e.record_id}`);
  const deliveries = async () => (await wp.core.db.selectFrom('deliveries').select('id').execute()).length;
  const enquiry = { full_name: 'Ana Reis', email: 'ana@example.com' };

  it('retries a PUT cut before its COMMIT: 201, written once, one event', async () => {
    const count = cutTransactions(wp, ['before-commit']);
    const res = await put('/host/v1/enquiries/7', enquiry);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ created: true, changed: true, record: { id: 7, full_name: 'Ana Reis' } });
    expect(count.began).toBe(2);
    expect(await eventTypes()).toEqual(['enquiry.created 7']);
    expect(await deliveries()).toBe(1);
  });

  it('takes another connection for each pooled one found dead at BEGIN, without spending a retry', async () => {
    const count = cutTransactions(wp, ['stale', 'stale', 'before-commit', 'stale', 'none']);
    const res = await put('/host/v1/enquiries/7', enquiry);
    expect(res.statusCode, res.body).toBe(201);
    expect(count.began).toBe(5);
    expect(await eventTypes()).toEqual(['enquiry.created 7']);
    // As many as a pool can hold (10) are skipped per drop; one more is a drop like any other (three retries,
    // each again with a pool's worth of dead ones), then a 503: 4 × (10 + 1) transactions began.
    const many = cutTransactions(wp, Array<Cut>(60).fill('stale'));
    expect((await put('/host/v1/enquiries/8', enquiry)).statusCode).toBe(503);
    expect(many.began).toBe(44);
  });

  it('answers a PUT cut after its COMMIT as the committed attempt did, and fires no second event', async () => {
    cutTransactions(wp, ['after-commit']);
    const res = await put('/host/v1/bookings/101', booking());
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ created: true, changed: true, record: { id: 101 } });
    // The retry found the booking and its new customer already there: no second customer, no event twice.
    const customers = await wp.core.db.selectFrom('customers').select('id').execute();
    expect(customers).toHaveLength(1);
    expect(await eventTypes()).toEqual([`customer.created ${customers[0].id}`, 'booking.created 101']);
    expect(await deliveries()).toBe(2);
    // An update cut the same way is a 200 that says it changed, and fires its own events once.
    cutTransactions(wp, ['after-commit']);
    const update = await put('/host/v1/bookings/101', booking({ status: 'canceled' }));
    expect(update.statusCode, update.body).toBe(200);
    expect(update.json()).toMatchObject({ created: false, changed: true, record: { status: 'canceled' } });
    expect((await eventTypes()).slice(2)).toEqual(['booking.updated 101', 'booking.canceled 101']);
  });

  it('answers 204 to a DELETE cut after its COMMIT (not 404), and 404 to one of nothing', async () => {
    await put('/host/v1/enquiries/7', enquiry);
    cutTransactions(wp, ['after-commit']);
    const res = await del('/host/v1/enquiries/7');
    expect(res.statusCode, res.body).toBe(204);
    expect(await wp.core.db.selectFrom('enquiries').select('id').execute()).toEqual([]);
    cutTransactions(wp, ['after-commit']);
    expect((await del('/host/v1/enquiries/7')).statusCode).toBe(404);
    cutTransactions(wp, ['before-commit']);
    await put('/host/v1/enquiries/8', enquiry);
    cutTransactions(wp, ['before-commit']);
    expect((await del('/host/v1/enquiries/8')).statusCode).toBe(204);
  });

  it('rides out three drops in a row, answers 503 with Retry-After at the fourth, and retries nothing else',
    async () => {
      const three = cutTransactions(wp, ['before-commit', 'after-commit', 'before-commit']);
      const ok = await put('/host/v1/enquiries/6', enquiry);
      expect(ok.statusCode, ok.body).toBe(201); // as the attempt that committed answered (created), written once
      expect(three.began).toBe(4);
      expect(await eventTypes()).toEqual(['enquiry.created 6']);
      await del('/host/v1/enquiries/6');
      const count = cutTransactions(wp, Array<Cut>(4).fill('before-commit'));
      const res = await put('/host/v1/enquiries/7', enquiry);
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.json().code).toBe('database_unavailable');
      expect(count.began).toBe(4);
      expect(await wp.core.db.selectFrom('enquiries').select('id').execute()).toEqual([]);
      // SQLite's busy file already waited busy_timeout: no second wait.
      const busyCount = cutTransactions(wp, ['busy']);
      expect((await put('/host/v1/enquiries/7', enquiry)).statusCode).toBe(503);
      expect(busyCount.began).toBe(1);
      expect(await eventTypes()).toEqual(['enquiry.created 6']); // a deletion fires no enquiry event
    });

  it('retries a batch operation the same way: the batch goes on and answers each item', async () => {
    await put('/host/v1/enquiries/9', enquiry);
    // The first operation's COMMIT is cut off (its retry runs), then the second one's body.
    cutTransactions(wp, ['after-commit', 'none', 'before-commit']);
    const res = await app.inject({
      method: 'POST', url: '/host/v1/batch', headers: HOST_AUTH, payload: {
        operations: [
          { op: 'put', resource: 'enquiries', id: 7, data: enquiry },
          { op: 'delete', resource: 'enquiries', id: 9 },
          { op: 'put', resource: 'enquiries', id: 8, data: enquiry },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().results).toEqual([
      { index: 0, status: 201, created: true, changed: true },
      { index: 1, status: 204 },
      { index: 2, status: 201, created: true, changed: true },
    ]);
    expect(await eventTypes()).toEqual(['enquiry.created 9', 'enquiry.created 7', 'enquiry.created 8']);
  });
});

describe('which errors mean a dropped connection', () => {
  it('is a terminated backend or a cut socket, not a refused connection or a busy SQLite file', () => {
    const err = (code: string, message = 'x') => Object.assign(new Error(message), { code });
    for (const e of [err('57P01'), err('08006'), err('ECONNRESET'), lostAnswer(),
      new Error('Client has encountered a connection error and is not queryable'),
      new Error('outer', { cause: err('57P02') })]) {
      expect(isDroppedConnection(e), e.message).toBe(true);
    }
    for (const e of [err('ECONNREFUSED'), err('57P03'), err('53300'), err('08001'), err('SQLITE_BUSY'), err('23505'),
      new Error('timeout exceeded when trying to connect'), null, 'Connection terminated unexpectedly']) {
      expect(isDroppedConnection(e), String(e)).toBe(false);
    }
  });
});
