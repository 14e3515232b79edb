// What SDK generators make of the served OpenAPI document, as a user runs them: one function or request per real
// operation. The document once declared post/put/patch/delete/options on every path only to say "405", which gave
// 45 functions like putBookingNotAllowed() and Postman collections 54 requests that fail (issue 35).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { apiFixture, type ApiFixture } from './setup.js';

const sh = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const bin = (name: string) => join(ROOT, 'node_modules/.bin', name);

const OPERATIONS = ['test', 'listBookings', 'getBooking', 'listTrips', 'getTrip', 'listCustomers', 'getCustomer',
  'listPayments', 'getPayment', 'listEvents', 'getEvent', 'ackEvents'];
/** Each operation's method: every one a GET but the event feed's acknowledgement. */
const METHODS = OPERATIONS.map((id) => (id === 'ackEvents' ? 'post' : 'get'));

describe('generated clients of the REST API', () => {
  let f: ApiFixture;
  let dir: string;
  let doc: any;
  beforeAll(async () => {
    f = await apiFixture('sqlite');
    dir = mkdtempSync(join(tmpdir(), 'waypost-sdk-'));
    doc = (await f.app.inject({ url: `${f.root}/openapi.json` })).json();
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
  });
  afterAll(async () => f.wp.close());

  it('@hey-api/openapi-ts makes exactly one SDK function per operation', async () => {
    await sh(bin('openapi-ts'), ['-i', 'openapi.json', '-o', 'hey'], { cwd: dir, timeout: 120_000 });
    const sdk = readFileSync(join(dir, 'hey/sdk.gen.ts'), 'utf8');
    const functions = [...sdk.matchAll(/^export const (\w+) = /gm)].map((m) => m[1]);
    expect(functions).toEqual(OPERATIONS);
  }, 150_000);

  it('openapi-typescript types one method per path; every other method is never', async () => {
    await sh(bin('openapi-typescript'), ['openapi.json', '-o', 'types.d.ts'], { cwd: dir, timeout: 120_000 });
    const types = readFileSync(join(dir, 'types.d.ts'), 'utf8');
    const operations = types.slice(types.indexOf('export interface operations {'));
    const ids = [...operations.matchAll(/^ {4}(\w+): \{$/gm)].map((m) => m[1]);
    // The document's `webhooks` section (the event catalog) is typed too, as the payloads receivers get.
    expect(ids.filter((id) => !id.startsWith('webhook'))).toEqual(OPERATIONS);
    const paths = types.slice(types.indexOf('export interface paths {'), types.indexOf('export interface webhooks {'));
    const declared = [...paths.matchAll(/^ {8}(get|put|post|delete|options|head|patch|trace)(\??): (.+);$/gm)]
      .filter(([, , optional]) => optional === '').map(([, method]) => method);
    expect(declared).toEqual(METHODS);
  }, 150_000);

  it('openapi-to-postmanv2 converts the document into one request per operation', async () => {
    const { convertV2 } = await import('openapi-to-postmanv2');
    const collection = await new Promise<any>((resolve, reject) => {
      convertV2({ type: 'json', data: doc }, { folderStrategy: 'Tags' }, (error, result: any) => {
        if (error || !result.result) reject(new Error(error?.message ?? result.reason));
        else resolve(result.output[0].data);
      });
    });
    const requests = (items: any[]): any[] => items.flatMap((i) => (i.item ? requests(i.item) : [i]));
    const methods = requests(collection.item).map((r) => r.request.method as string).sort();
    expect(methods).toEqual(METHODS.map((m) => m.toUpperCase()).sort());
  });

  it('still answers 405 with Allow to the methods the document no longer lists', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
      const res = await f.app.inject({ method, url: `${f.root}/bookings/1`, payload: method === 'OPTIONS' ? undefined
        : {} });
      expect(res.statusCode, method).toBe(405);
      expect(res.headers.allow, method).toBe('GET, HEAD');
    }
  });
});
