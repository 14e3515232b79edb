// The event feed (issue 35): GET /events lists the events webhooks carry (the same envelopes, the same ids as
// `webhook-id`), oldest first or newest first, resumable exactly from an event id or cursor, with long polling
// (`wait`) and server-kept consumer positions (POST /events/ack, the REST API's one write). Logic in src/feed/.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Core } from '../core.js';
import { invalidParameter, notFound } from '../errors.js';
import { acknowledge, consumerPosition } from '../feed/consumers.js';
import { encodeCursor, feedFilter, parseAfter, type FeedFilter, type FeedQuery } from '../feed/params.js';
import { readEvent, readPage, type FeedEvent } from '../feed/read.js';
import { feedWaiters } from '../feed/waiters.js';
import { envelopeJson } from '../webhooks/delivery/request.js';
import { AckAnswer, AckBody, EventEnvelope, EventParams, FEED_QUERY } from './events-schemas.js';
import { SECURITY } from './openapi.js';
import { NoQuery } from './schemas.js';

type Errors = Record<number, unknown>;

const sendEvents = (reply: FastifyReply, body: string) =>
  reply.header('Cache-Control', 'no-store').type('application/json; charset=utf-8').send(body);

export function registerEventFeed(api: FastifyInstance, core: Core, root: string, errors: Errors): void {
  const feedUrl = `${core.config.baseUrl}${root}/events`;
  const linkHeader = { Link: { type: 'string', description: 'RFC 8288 links: next (resume after this page), first' } };

  api.get('/events', {
    config: { apiPermission: 'events.list' },
    schema: {
      tags: ['events'], summary: 'List events', operationId: 'listEvents', security: SECURITY,
      description: 'The events webhooks carry, whatever the subscriptions, for the feed\'s retention (30 days by '
        + 'default). Oldest first; follow `Link: rel="next"` (or pass the last id as `after`) to resume exactly. '
        + '`wait` holds an empty answer until a matching event commits.',
      querystring: FEED_QUERY,
      response: {
        200: {
          description: 'A JSON array of event envelopes, the same bytes a webhook delivery carries',
          headers: linkHeader,
          content: { 'application/json': { schema: Type.Array(EventEnvelope) } },
        },
        ...errors,
        410: problemRef('`after` (or the consumer\'s position) is older than the retention'),
      },
    },
  }, async (req, reply) => {
    const q = req.query as FeedQuery;
    const order = q.order ?? 'asc';
    if (q.consumer !== undefined && order === 'desc') {
      throw invalidParameter('consumer', 'a consumer follows the feed oldest first: leave out order=desc');
    }
    const after = q.after !== undefined ? parseAfter(q.after, order)
      : q.consumer !== undefined ? await consumerPosition(core, req.apiKey!.id, q.consumer) : null;
    const filter = feedFilter(q, after, core.clock.now(), core.config.eventRetentionDays);
    const perpage = q.perpage ?? 10;
    let page = await readPage(core.db, filter, perpage);
    if (page.items.length === 0 && q.wait !== undefined) page = await waitForEvents(reply, filter, perpage, q.wait);
    reply.header('Link', feedLinks(q, after, page.items, page.more));
    return sendEvents(reply, `[${page.items.map(envelopeJson).join(',')}]`);
  });

  /** Waits (no database work) until an event passing the filter commits, then reads the page again. */
  async function waitForEvents(reply: FastifyReply, filter: FeedFilter, perpage: number, seconds: number) {
    const waiting = await feedWaiters(core).enter(filter, seconds * 1000);
    reply.raw.once('close', waiting.cancel); // the client went away
    try {
      // Read again once registered: what committed since the first read is in it, what commits later wakes us.
      const page = await readPage(core.db, filter, perpage);
      if (page.items.length > 0 || !(await waiting.until)) return page;
      return await readPage(core.db, filter, perpage);
    } finally {
      waiting.cancel();
    }
  }

  /** `next` resumes right after the last event handed out (oldest first) or goes on to older ones (newest first). */
  function feedLinks(q: FeedQuery, after: string | null, items: FeedEvent[], more: boolean): string {
    const order = q.order ?? 'asc';
    const rest = Object.entries(q).filter(([k, v]) => v !== undefined && k !== 'after');
    const url = (extra: Record<string, string>) => {
      const params = new URLSearchParams(rest.map(([k, v]) => [k, String(v)]));
      for (const [k, v] of Object.entries(extra)) params.set(k, v);
      const qs = params.toString();
      return qs ? `${feedUrl}?${qs}` : feedUrl;
    };
    const last = items.length > 0 ? items[items.length - 1].id : after;
    const links: string[] = [];
    if (last !== null && (order === 'asc' || more)) {
      links.push(`<${url({ after: encodeCursor(order, last) })}>; rel="next"`);
    }
    links.push(`<${url({})}>; rel="first"`);
    return links.join(', ');
  }

  api.get('/events/:id', {
    config: { apiPermission: 'events.read' },
    schema: {
      tags: ['events'], summary: 'Get an event', operationId: 'getEvent', security: SECURITY,
      params: EventParams, querystring: NoQuery,
      response: {
        200: { description: 'The event envelope', content: { 'application/json': { schema: EventEnvelope } } },
        ...errors, 404: problemRef('No such event (or no longer kept)'),
      },
    },
  }, async (req, reply) => {
    const { id } = req.params as { id: string };
    const event = await readEvent(core.db, id);
    if (!event) throw notFound(`event ${id}`);
    return sendEvents(reply, envelopeJson(event));
  });

  api.post('/events/ack', {
    config: { apiPermission: 'events.list', apiWrite: true },
    schema: {
      tags: ['events'], summary: 'Acknowledge events for a consumer', operationId: 'ackEvents', security: SECURITY,
      description: 'Moves this key\'s consumer NAME to the event (never backwards; created on its first '
        + 'acknowledgement). `GET /events?consumer=NAME` then starts right after it.',
      body: AckBody,
      response: {
        200: { description: 'The consumer\'s position', content: { 'application/json': { schema: AckAnswer } } },
        ...errors,
      },
    },
  }, async (req) => {
    const body = req.body as { consumer: string; event_id: string };
    return acknowledge(core, req.apiKey!.id, body.consumer, body.event_id);
  });
}

const problemRef = (description: string) => ({
  description, content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
});
