// The REST API is read-only: every other method is 405 with Allow, whatever body it carries, before credentials or
// the body are looked at. And a body over the server's limit is a 413 that says so, on every surface.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH } from '../helpers/waypost.js';
import { apiFixture, type ApiFixture } from './setup.js';

describe.each(DIALECTS)('read-only REST API on %s', (dialect) => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await apiFixture(dialect);
  });
  afterAll(async () => f.wp.close());

  const expect405 = (res: { statusCode: number; headers: Record<string, unknown>; json: () => any }) => {
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 405, code: 'method_not_allowed', title: 'Method Not Allowed' });
  };

  it('answers 405 to a POST with a broken JSON body, not 400', async () => {
    const res = await f.app.inject({
      method: 'POST', url: `${f.root}/bookings`, headers: { ...f.auth, 'content-type': 'application/json' },
        payload: '{"status":',
    });
    expect405(res);
  });

  it('answers 405 to a DELETE with an empty JSON body, with or without credentials, on any API path', async () => {
    for (const url of [`${f.root}/bookings/1`, `${f.root}/test`, `${f.root}/openapi.json`, `${f.root}/nothing-here`]) {
      expect405(await f.app.inject({ method: 'DELETE', url,
        headers: { ...f.auth, 'content-type': 'application/json' } }));
      expect405(await f.app.inject({ method: 'DELETE', url, headers: { 'content-type': 'application/json' } }));
    }
  });

  it('answers 405 to a body of an unknown type or over the size limit (the body is never read)', async () => {
    expect405(await f.app.inject({
      method: 'PUT', url: `${f.root}/trips/1`, headers: { ...f.auth, 'content-type': 'application/x-weird' },
        payload: 'x',
    }));
    expect405(await f.app.inject({
      method: 'PATCH', url: `${f.root}/trips/1`, headers: { ...f.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ title: 'x'.repeat(2 * 1024 * 1024) }),
    }));
  });

  it('a body over the limit elsewhere is 413 "Payload Too Large", not "Bad Request"', async () => {
    const res = await f.app.inject({
      method: 'PUT', url: '/host/v1/trips/1', headers: { ...HOST_AUTH, 'content-type': 'application/json' },
      payload: JSON.stringify({ title: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 413, title: 'Payload Too Large', code: 'payload_too_large' });
    const type = await f.app.inject({
      method: 'PUT', url: '/host/v1/trips/1', headers: { ...HOST_AUTH, 'content-type': 'text/csv' }, payload: 'a,b',
    });
    expect(type.json()).toMatchObject({ status: 415, title: 'Unsupported Media Type', code: 'unsupported_media_type' });
  });
});
