// Credentials must not reach any log line at any level, whatever spelling of a credential name a client uses.
// The server's query parser (fast-querystring) decodes `%XX` and `+` in names, so redaction has to look at
// names the same way; this runs a real server over real HTTP and reads every line it logs at `trace`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { apiRoot } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createApiKey, PERMISSIONS, type CreatedApiKey } from '../../src/api/keys.js';
import { createAdmin } from '../../src/admin/accounts.js';

const ADMIN_EMAIL = 'ops@example.com';
const ADMIN_PASSWORD = 'correct horse battery staple';
const WRONG_PASSWORD = 'wrong-admin-passphrase-9';
const HOST_TOKEN = HOST_AUTH.authorization.replace('Bearer ', '');
const WRONG_SECRET = 'wps_wrong-secret-value-42';
const WRONG_HOST_TOKEN = 'wrong-host-token-value-7';

/** Every line pino writes, kept so each case can read exactly what would reach the log. */
const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, cb) { lines.push(...String(chunk).split('\n').filter(Boolean)); cb(); },
});

/** A line plus any Buffer it holds, decoded: a raw packet logged as `{type:'Buffer',data:[…]}` is still a leak. */
function readable(line: string): string {
  const buffers: string[] = [];
  JSON.parse(line, (_k, v: unknown) => {
    const b = v as { type?: unknown; data?: unknown };
    if (b?.type === 'Buffer' && Array.isArray(b.data)) buffers.push(Buffer.from(b.data as number[]).toString('latin1'));
    return v;
  });
  return [line, ...buffers].join('\n');
}

/** Each character as %XX: what a client may send instead of the plain value. */
const encodeAll = (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

/** Waits until `done` holds: request lines are written in onResponse, which may run after the client has its answer. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!done()) throw new Error(`timed out waiting for ${what}`);
}

describe('log redaction of credentials (real HTTP, level trace)', () => {
  let wp: Waypost;
  let base: string;
  let api: string;
  let key: CreatedApiKey;
  let session = { cookie: '', csrf: '' };

  beforeAll(async () => {
    // A high auth-failure limit: many cases fail on purpose, and each must reach the credential check.
    const config = { port: 0, host: '127.0.0.1', authFailLimit: 10_000 };
    wp = await testWaypost({ logger: createLogger('trace', sink), config });
    base = (await wp.serve('api')).url!;
    api = apiRoot(wp.config);
    key = await createApiKey(wp.core, { label: 'log redaction', permissions: PERMISSIONS });
    await createAdmin(wp.core, ADMIN_EMAIL, ADMIN_PASSWORD);
  });
  afterAll(async () => wp?.close());

  /** Through undici's fetch, as a client would; answers the status. */
  const fetchStatus = async (path: string, init: RequestInit = {}) => (await fetch(`${base}${path}`, init)).status;

  /** Through node:http with the request target sent as given (fetch would drop a `#…` or rewrite the target). */
  const rawStatus = (target: string, headers: Record<string, string> = {}) => new Promise<number>((resolve, reject) => {
    const { hostname, port } = new URL(base);
    const req = httpRequest({ host: hostname, port, path: target, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });

  /** Sends bytes the HTTP parser rejects: Node hands Fastify the raw packet, which it logs at trace. */
  const malformed = (headerLines: string[]) => new Promise<void>((resolve, reject) => {
    const { hostname, port } = new URL(base);
    const socket = connect(Number(port), hostname, () => {
      socket.end(['GET /healthz HTTP/1.1', 'Host: x', ...headerLines, 'not a header line', '', ''].join('\r\n'));
    });
    socket.on('error', reject);
    socket.on('close', () => resolve());
    socket.resume();
  });

  /** Runs one case: sends it, waits for what it logs, and checks no new line holds a credential. */
  async function check<T>(send: () => Promise<T>, expectStatus: number | undefined, marker = 'request') {
    const from = lines.length;
    const seen = () => lines.slice(from).some((l) => l.includes(`"msg":"${marker}`));
    const sent = await send();
    const status = sent instanceof Response ? sent.status : sent;
    if (expectStatus !== undefined) expect(status).toBe(expectStatus);
    await until(seen, `a "${marker}" log line`);
    const plain = [
      key.key, key.secret, WRONG_SECRET, ADMIN_PASSWORD, WRONG_PASSWORD,
      HOST_TOKEN, WRONG_HOST_TOKEN, session.cookie.slice(session.cookie.indexOf('=') + 1), session.csrf,
    ].filter((n) => n.length > 0);
    // Also as a URL may carry them: %-encoded (fully, or as fetch does) and with + for spaces.
    const needles = plain.flatMap((n) => [n, encodeAll(n), encodeURIComponent(n), n.replace(/ /g, '+')]);
    const leaked = lines.slice(from).map(readable).filter((l) => needles.some((n) => l.includes(n)));
    expect(leaked).toEqual([]);
    return { sent, entries: lines.slice(from).map((l) => JSON.parse(l) as Record<string, unknown>) };
  }

  const K = () => key.key;
  const S = () => key.secret;

  // Query-string spellings the server accepts as credentials: each authenticates, so must answer 200.
  it.each([
    ['literal names', () => `accesstoken=${K()}&accesssecret=${S()}`],
    ['one encoded letter in each name', () => `accesst%6Fken=${K()}&accesss%65cret=${S()}`],
    ['encoded first and last letters', () => `%61ccesstoken=${K()}&accesssecre%74=${S()}`],
    ['fully encoded, lower-case hex', () => `${encodeAll('accesstoken')}=${K()}&${encodeAll('accesssecret')}=${S()}`],
    ['after other parameters, reversed', () => `perpage=2&accesss%65cret=${S()}&page=1&accesst%6Fken=${K()}`],
    ['fully encoded values', () => `accesst%6Fken=${encodeAll(K())}&accesss%65cret=${encodeAll(S())}`],
  ])('redacts query credentials that authenticate: %s', async (_name, query) => {
    const path = query().startsWith('perpage') ? 'bookings' : 'test';
    await check(() => fetchStatus(`${api}/${path}?${query()}`), 200);
  });

  // Spellings that do not authenticate (the names differ after decoding), yet still carry the secret.
  it.each([
    ['[] suffix', () => `accesstoken[]=${K()}&accesssecret[]=${S()}`],
    ['[0] suffix', () => `accesstoken[0]=${K()}&accesssecret[0]=${S()}`],
    ['encoded [] suffix', () => `accesstoken%5B%5D=${K()}&accesss%65cret%5B0%5D=${S()}`],
    ['mixed case', () => `AccessToken=${K()}&ACCESSSECRET=${S()}`],
    ['mixed case, encoded', () => `ACCESST%4FKEN=${K()}&Access%53ecret=${S()}`],
    ['repeated names', () => `accesstoken=${K()}&accesstoken=${K()}&accesssecret=${S()}&accesssecret=${S()}`],
    ['repeated names, one encoded', () => `accesstoken=${K()}&accesssecret=${S()}&accesss%65cret=${S()}`],
    ['+ in the value', () => `accesstoken=${K()}&accesssecret=${S()}+x`],
    ['+ in the value, encoded name', () => `accesst%6Fken=${K()}&accesss%65cret=x+${S()}`],
    ['+ and %20 in the name', () => `access+token=${K()}&access%20secret=${S()}`],
    ['wrong secret, encoded name', () => `accesstoken=${K()}&%61ccesssecret=${WRONG_SECRET}`],
    // The key (not the secret, whose wps_ shape is also redacted anywhere) shows that the names alone suffice.
    ['other secret-like names', () => `token=${K()}&client_secret=${K()}&password=${K()}&api_key=${K()}`],
    ['key-like names', () => `apiKey=${K()}&access-key=${K()}&key=${K()}`],
    ['authorization and passwd', () => `Authorization=Bearer+${K()}&passwd=${K()}`],
  ])('redacts query credentials that do not authenticate: %s', async (_name, query) => {
    await check(() => fetchStatus(`${api}/test?${query()}`), 401);
  });

  it('keeps the request line format: names as sent, only values replaced', async () => {
    const path = `${api}/bookings?perpage=2&accesst%6Fken=${K()}&page=1&accesss%65cret=${S()}&x[]=1`;
    const { entries } = await check(() => fetchStatus(path), 400); // x[] is not a list parameter
    const url = `${api}/bookings?perpage=2&accesst%6Fken=[REDACTED]&page=1&accesss%65cret=[REDACTED]&x[]=1`;
    expect(entries.find((e) => e.msg === 'request')).toMatchObject({ method: 'GET', status: 400, url });
  });

  it('redacts credentials after a # (the router takes the query from there too, and they authenticate)', async () => {
    await check(() => rawStatus(`${api}/test#accesstoken=${K()}&accesssecret=${S()}`), 200);
  });

  it('redacts credentials in an absolute-form request target', async () => {
    await check(() => rawStatus(`${base}${api}/test?accesst%6Fken=${K()}&accesssecret=${S()}`), 200);
  });

  it('redacts credentials sent in headers, right or wrong', async () => {
    const trips = (secret: string) =>
      fetchStatus(`${api}/trips`, { headers: { 'access-token': K(), 'access-secret': secret } });
    await check(() => trips(S()), 200);
    await check(() => trips(WRONG_SECRET), 401);
  });

  it('redacts the host token, right or wrong', async () => {
    const put = (authorization: string) => fetchStatus('/host/v1/trips/1', {
      method: 'PUT', headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Douro' }),
    });
    await check(() => put(`Bearer ${HOST_TOKEN}`), 201);
    await check(() => put(`Bearer ${WRONG_HOST_TOKEN}`), 401);
    await check(() => fetchStatus(`/host/v1/trips/1?token=${HOST_TOKEN}`, { method: 'PUT' }), 401);
  });

  it('redacts the admin password, session cookie and CSRF token', async () => {
    const signIn = (password: string) => fetch(`${base}/admin/api/session`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ADMIN_EMAIL, password }),
    });
    await check(() => signIn(WRONG_PASSWORD), 401);
    const { sent: res } = await check(() => signIn(ADMIN_PASSWORD), 200);
    const csrf = ((await res.json()) as { csrf_token: string }).csrf_token;
    session = { cookie: res.headers.getSetCookie()[0]!.split(';')[0]!, csrf };
    const headers = { cookie: session.cookie, 'x-csrf-token': session.csrf };
    await check(() => fetchStatus('/admin/api/session', { headers }), 200);
    await check(() => fetchStatus(`/admin/api/session?password=${ADMIN_PASSWORD}`, { headers }), 200);
    await check(() => fetchStatus('/admin/api/session', { method: 'DELETE', headers }), 204);
  });

  it('redacts credentials from the raw packet of a request the HTTP parser rejects (logged at trace)', async () => {
    const headers = [`Access-Token: ${K()}`, `Access-Secret: ${S()}`, `Authorization: Bearer ${HOST_TOKEN}`];
    await check(() => malformed(headers), undefined, 'client error');
  });
});
