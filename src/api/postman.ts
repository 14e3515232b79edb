// The Postman collection of the REST API, at {api_root}/postman.json: converted from the served OpenAPI document by
// Postman's own converter (openapi-to-postmanv2), then completed with what the converter cannot say. Made once per
// process, when the server starts listening (or at the first request, for an app that never listens).
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import { AppError } from '../errors.js';
import type { Json } from './openapi-json.js';

/** The collection's variables: set accessToken and accessSecret to an API key and its secret. */
export const POSTMAN_VARIABLES = ['baseUrl', 'accessToken', 'accessSecret'] as const;

// Every request of the collection checks what every documented read answers.
const TESTS = [
  "pm.test('200 OK', function () { pm.response.to.have.status(200); });",
  "pm.test('JSON body', function () { pm.response.to.have.jsonBody(); });",
];

/**
 * The document the collection is made from, without its security schemes: the converter's "API key" auth sends one
 * header (Access-Token) and drops the secret, so both are added below as headers instead.
 */
function withoutSecuritySchemes(doc: Json): Json {
  const copy = structuredClone(doc) as Json;
  for (const item of Object.values(copy.paths as Json)) {
    // The GETs, and POST /events/ack (the one real write).
    for (const op of Object.values(item as Json)) if ((op as Json).responses) delete (op as Json).security;
  }
  delete copy.components.securitySchemes;
  return copy;
}

/** Every request of a collection, through its folders. */
const requestsOf = (items: Json[]): Json[] => items.flatMap((i) => (i.item ? requestsOf(i.item) : [i]));

export async function postmanCollection(doc: Json): Promise<Json> {
  // Loaded on first use: a process that never serves the collection never loads the converter.
  const { convertV2 } = await import('openapi-to-postmanv2');
  const result = await new Promise<Json>((resolve, reject) => {
    convertV2({ type: 'json', data: withoutSecuritySchemes(doc) }, {
      folderStrategy: 'Tags',
      // Path ids and query values from the parameters' examples (the demo seed's records), not faked from schemas.
      parametersResolution: 'Example',
      // Optional query parameters are listed, unticked: tick one to use it.
      enableOptionalParameters: false,
    }, (err, res) => (err ? reject(err) : resolve(res as Json)));
  });
  if (!result.result) throw new Error(`openapi-to-postmanv2: ${result.reason}`);
  const collection = result.output[0].data as Json;

  for (const item of requestsOf(collection.item as Json[])) {
    const request = item.request as Json;
    delete request.auth;
    request.header = [
      ...((request.header ?? []) as Json[]),
      { key: 'Access-Token', value: '{{accessToken}}', description: 'The API key' },
      { key: 'Access-Secret', value: '{{accessSecret}}', description: 'The API secret (shown once, at creation)' },
    ];
  }
  delete collection.auth;
  const baseUrl = (collection.variable as Json[]).find((v) => v.key === 'baseUrl')?.value ?? doc.servers[0].url;
  collection.variable = [
    { key: 'baseUrl', value: baseUrl, type: 'string', description: 'Where Waypost answers (no path)' },
    { key: 'accessToken', value: '', type: 'string', description: 'An API key (wpk_…): console, API Keys tab' },
    { key: 'accessSecret', value: '', type: 'secret', description: 'Its secret (wps_…), shown once at creation' },
  ];
  collection.event = [
    ...((collection.event ?? []) as Json[]).filter((e) => e.listen !== 'test'),
    { listen: 'test', script: { type: 'text/javascript', exec: TESTS } },
  ];
  return collection;
}

/** Serves the collection inside the API's scope (no credentials needed, like openapi.json). */
export function registerPostman(api: FastifyInstance, core: Core): void {
  let made: Promise<string> | null = null;
  const make = () => {
    if (!made) {
      made = postmanCollection(api.swagger() as Json).then((c) => JSON.stringify(c));
      made.catch((err) => {
        core.log.error({ err }, 'could not make the Postman collection');
        made = null; // the next request tries again
      });
    }
    return made;
  };
  // Made at start, so the first download does not wait for the conversion.
  api.addHook('onListen', async () => { make().catch(() => {}); });
  api.get('/postman.json', { schema: { hide: true } }, async (_req, reply) => {
    const collection = await make().catch(() => {
      throw new AppError(503, 'unavailable', 'Service Unavailable', 'The Postman collection could not be made');
    });
    return reply
      .type('application/json; charset=utf-8')
      .header('Content-Disposition', 'attachment; filename="waypost.postman_collection.json"')
      .send(collection);
  });
}
