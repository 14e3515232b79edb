// Shared pieces for the webhook-management suites: a real local HTTP receiver, the admin bearer header, and
// helpers that put deliveries into the log through the engine's own outbox functions.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { manualClock, type FakeClock } from '../../helpers/clock.js';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Waypost } from '../../../src/sdk.js';
import type { Clock } from '../../../src/core.js';
import type { TestDialect } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import { rotateAdminToken } from '../../../src/admin/token.js';
import { queueDelivery, recordEvent } from '../../../src/webhooks/outbox.js';
import type { DeliveryStatus } from '../../../src/webhooks/tables.js';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** What the next requests are answered with. */
  answer: { status: number; body: string; headers?: Record<string, string> };
  close(): Promise<void>;
}

/** A real HTTP server on a random port that records every request. */
export async function startReceiver(answer: Receiver['answer'] = { status: 200,
  body: '{"ok":true}' }): Promise<Receiver> {
  const received: Received[] = [];
  const receiver: Receiver = { url: '', received, answer, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(receiver.answer.status, { 'content-type': 'application/json', ...receiver.answer.headers });
      res.end(receiver.answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return receiver;
}

export async function adminHeaders(wp: Waypost): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await rotateAdminToken(wp.core)}` };
}

/** What each admin-API test starts from: a Waypost, its HTTP app, the admin bearer header and a receiver. */
export interface AdminSuite {
  wp: Waypost;
  app: FastifyInstance;
  auth: Record<string, string>;
  receiver: Receiver;
}

export async function openAdminSuite(dialect: TestDialect, clock?: Clock): Promise<AdminSuite> {
  const wp = await testWaypost({ dialect, clock });
  return { wp, app: await wp.app(), auth: await adminHeaders(wp), receiver: await startReceiver() };
}

export async function closeAdminSuite({ wp, receiver }: Pick<AdminSuite, 'wp' | 'receiver'>): Promise<void> {
  await receiver.close();
  await wp.close();
}

/** Records an event and queues one delivery of it to `webhookId`, as the write path does; optionally finishes it. */
export async function seedDelivery(wp: Waypost, webhookId: string, type = 'booking.created',
  status: DeliveryStatus = 'pending'): Promise<{ eventId: string; deliveryId: string }> {
  const { core } = wp;
  const ids = await core.db.transaction().execute(async (trx) => {
    const eventId = await recordEvent(trx, core, { type, resource: 'bookings', recordId: 1,
      data: { id: 1, status: 'booked' } });
    const deliveryId = await queueDelivery(trx, core, { webhookId, eventId, eventType: type });
    return { eventId, deliveryId };
  });
  if (status !== 'pending') {
    const now = new Date(core.clock.now()).toISOString();
    await core.db.updateTable('deliveries')
      .set({ status, attempts: 1, next_attempt_at: null, last_status: status === 'succeeded' ? 200 : 500,
      completed_at: now, updated_at: now })
      .where('id', '=', ids.deliveryId).execute();
  }
  return ids;
}

/** A clock the test moves by hand (starting at 2026-03-01T12:00:00Z unless told). */
export const fakeClock = (start = Date.parse('2026-03-01T12:00:00Z')): FakeClock => manualClock(start);
