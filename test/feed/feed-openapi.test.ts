// The feed in the API's description: the OpenAPI document has GET /events, GET /events/{id} and POST /events/ack
// (the one write besides the 405s), Postman has a request for each, and the key permissions include the feed's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from '../api/setup.js';
import { PERMISSIONS } from '../../src/api/keys.js';
import { ALL_PERMISSIONS } from '../../web/src/keys/permissions.js';

type Json = Record<string, any>;
const requestsOf = (items: Json[]): Json[] => items.flatMap((i) => (i.item ? requestsOf(i.item) : [i]));

describe('the event feed in the OpenAPI document, Postman and the permissions', () => {
  let f: ApiFixture;
  let doc: Json;
  beforeAll(async () => {
    f = await apiFixture('sqlite');
    doc = (await f.app.inject({ url: `${f.root}/openapi.json` })).json();
  });
  afterAll(async () => f.wp.close());

  it('documents the feed\'s operations, parameters and statuses', () => {
    const events = doc.paths[`${f.root}/events`];
    expect(events.get.operationId).toBe('listEvents');
    expect(events.get.parameters.map((p: Json) => p.name).sort()).toEqual(
      ['after', 'consumer', 'order', 'perpage', 'record', 'since', 'types', 'until', 'wait']);
    expect(events.get.parameters.find((p: Json) => p.name === 'wait').schema)
      .toMatchObject({ minimum: 1, maximum: 30 });
    expect(Object.keys(events.get.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '410', '429']));
    expect(doc.paths[`${f.root}/events/{id}`].get.operationId).toBe('getEvent');
    const ack = doc.paths[`${f.root}/events/ack`];
    expect(ack.post.operationId).toBe('ackEvents');
    expect(ack.post.requestBody.content['application/json'].schema.required.sort()).toEqual(['consumer', 'event_id']);
  });

  it('has a Postman request for each, and events.list / events.read in the API\'s and console\'s permissions',
    async () => {
    const collection = (await f.app.inject({ url: `${f.root}/postman.json` })).json();
    const requests = requestsOf(collection.item).map((r) => `${r.request.method} /${r.request.url.path.slice(4)
      .join('/')}`);
    expect(requests).toEqual(expect.arrayContaining(['GET /events', 'GET /events/:id', 'POST /events/ack']));
    expect(PERMISSIONS).toEqual(expect.arrayContaining(['events.list', 'events.read']));
    expect(ALL_PERMISSIONS).toEqual([...PERMISSIONS]);
  });
});
