// Structured JSON logs (pino). Credentials are redacted wherever they could appear: in the request line's query
// string (by name, decoded the way the server's query parser decodes it), in logged objects at any depth (by key
// name), in serialized errors (including the raw packet of a request Node could not parse), and, as a last net, in
// the finished line itself (query-style pairs, JSON members, bearer tokens, URL passwords, Waypost secrets).
import type { Socket } from 'node:net';
import { pino, stdSerializers, type Logger } from 'pino';

export const REDACTED = '[REDACTED]';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["access-token"]',
  'req.headers["access-secret"]',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'req.headers["set-cookie"]',
  'res.headers["set-cookie"]',
  '*.secret',
  '*.password',
  'secret',
  'password',
];

/**
 * Names that hold a credential, tested on the name lower-cased with everything but letters and digits removed
 * (so `access-secret`, `Access_Secret` and `accesssecret[]` are all `accesssecret`). Substrings catch the
 * variants (`client_secret`, `x-csrf-token`, `set-cookie`, `api_key`); short words must match whole.
 */
const CREDENTIAL_PART =
  /token|secret|passw|pwd|apikey|accesskey|privatekey|authorization|cookie|credential|csrf|signature/;
// `rawPacket`: Node puts the raw bytes of a request it could not parse (headers included) on the error.
const CREDENTIAL_WHOLE = new Set(['auth', 'key', 'sig', 'session', 'sessionid', 'sid', 'rawpacket']);

function credentialWord(name: string): boolean {
  // With bracket contents dropped too: `key[0]` is `key`, while `access[token]` still shows `token`.
  const lower = name.toLowerCase();
  for (const n of [lower.replace(/[^a-z0-9]/g, ''), lower.replace(/\[[^\]]*\]|[^a-z0-9]/g, '')]) {
    if (CREDENTIAL_PART.test(n) || CREDENTIAL_WHOLE.has(n)) return true;
  }
  return false;
}

/**
 * Decodes a query-string name the way fast-querystring (Fastify's parser) does: `+` is a space and `%XX` a byte.
 * Every `%XX` is decoded on its own (as Latin-1), so a name with one malformed escape, which the parser keeps raw
 * but another parser might decode, is still recognised; credential names are ASCII, so this loses nothing.
 */
const decodeName = (raw: string) =>
  raw.replace(/\+/g, ' ').replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** Whether a query parameter (raw name, as sent) carries a credential, whatever its spelling. */
export function isCredentialParam(rawName: string): boolean {
  return credentialWord(rawName) || credentialWord(decodeName(rawName));
}

/** Whether a key of a logged object, or a header name, carries a credential. */
export const isCredentialKey = (name: string): boolean => credentialWord(name);

/**
 * Query parameters whose value may be a traveller's personal data: the API's `search` and `email` filters, the
 * delivery log's search box (`q`). Logs keep no copy of it (an erasure could not reach one).
 */
const PERSONAL_PARAMS = new Set(['search', 'email', 'q']);

const isPersonalParam = (rawName: string) => PERSONAL_PARAMS.has(decodeName(rawName).trim().toLowerCase());

/** Replaces the value of every credential or personal parameter of a raw query string; all else is kept as it is. */
export function redactQuery(query: string): string {
  return query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq === -1 ? '' : pair.slice(0, eq);
    return eq !== -1 && (isCredentialParam(name) || isPersonalParam(name)) ? `${pair.slice(0, eq + 1)}${REDACTED}`
      : pair;
  }).join('&');
}

/**
 * Removes credentials from a URL's query string before it is logged. The query starts at the first `?` or `#`,
 * as the router (find-my-way) splits it, and `;` too (a router option), so nothing it may parse is missed.
 */
export function redactUrl(url: string): string {
  const q = url.search(/[?#;]/);
  return q === -1 ? url : url.slice(0, q + 1) + redactQuery(url.slice(q + 1));
}

const isPlainObject = (v: object) => {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

/** A copy of `value` with credential-named members redacted at any depth; `value` itself when none were found. */
export function redactObject(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > 10) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((v: unknown, i) => {
      const next = redactObject(v, depth + 1);
      if (next !== v) (out ??= [...value])[i] = next;
    });
    return out ?? value;
  }
  if (!isPlainObject(value)) return value; // Errors, Buffers, requests: their serializers handle them
  const obj = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    const next = v !== undefined && isCredentialKey(k) ? REDACTED : redactObject(v, depth + 1);
    if (next !== v) (out ??= { ...obj })[k] = next;
  }
  return out ?? value;
}

const isSerializedError = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !isPlainObject(v) && typeof (v as { message?: unknown }).message === 'string';

/** Redacts a serialized error in place (pino's serializer builds a new one per call), causes and aggregates too. */
function redactSerializedError(e: Record<string, unknown>, depth: number): void {
  for (const k of Object.keys(e)) {
    const v = e[k];
    if (v !== undefined && isCredentialKey(k)) e[k] = REDACTED;
    else if (isSerializedError(v)) {
      if (depth < 10) redactSerializedError(v, depth + 1);
    } else if (Array.isArray(v)) e[k] = v.map((x: unknown) => redactSerializedItem(x, depth + 1));
    else e[k] = redactObject(v);
  }
}

function redactSerializedItem(x: unknown, depth: number): unknown {
  if (!isSerializedError(x)) return redactObject(x);
  if (depth < 10) redactSerializedError(x, depth);
  return x;
}

/** pino's error serializer, then credential-named members redacted (Node's `rawPacket` holds the raw headers). */
function serializeErr(err: unknown): unknown {
  const out = stdSerializers.err(err as Error) as unknown;
  if (out === err) return redactObject(err); // not an error: logged as it is, so redacted as any object
  if (isSerializedError(out)) redactSerializedError(out, 0);
  return out;
}

/** A request logged as `req` (were request logging turned on): Fastify's usual fields, the URL redacted. */
function serializeReq(req: unknown): unknown {
  if (!req || typeof req !== 'object') return req;
  const r = req as { method?: string; url?: unknown; ip?: string; host?: string; socket?: Partial<Socket> };
  const url = typeof r.url === 'string' ? redactUrl(r.url) : r.url;
  if (isPlainObject(req)) return redactObject({ ...req, url });
  const remoteAddress = r.ip ?? r.socket?.remoteAddress;
  return { method: r.method, url, host: r.host, remoteAddress, remotePort: r.socket?.remotePort };
}

// The last net, over the finished line. Names and values stop at characters that cannot be part of them in a URL
// or a JSON string; the name length is capped so a long line without `=` costs linear time.
const PAIR = /([^\s&?#;=,"'\\(){}<>[\]]{1,128}(?:\[[^\s&=\]"\\]{0,32}\])*)=((?:\\.|[^\s&"\\])*)/g;
const JSON_MEMBER = /"((?:[^"\\]|\\.){1,128})":"((?:[^"\\]|\\.)*)"/g;
// `Basic` only capitalised, so the English word is left alone; tokens are at least 6 token characters.
const BEARER = /\b([Bb]earer|BEARER|Basic|BASIC)(\s+|\+|%20)(?!\[REDACTED\])[A-Za-z0-9._~+/=-]{6,}/g;
const SECRET_SHAPE = /\b(wps|wph|wpa|whsec)_(?!\[REDACTED\])[A-Za-z0-9_\-+/=]{8,}/g;
// The password of a URL's user info (DATABASE_URL, REDIS_URL, SMTP_URL in a driver's error message).
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]{0,31}:\/\/[^\s:@/"\\]{0,128}):(?!\[REDACTED\]@)[^\s@/"\\]{1,256}@/gi;

/** Redacts credentials from free text: messages, error messages and stacks, and whole log lines. */
export function redactText(text: string): string {
  let out = text;
  if (out.includes('=')) {
    out = out.replace(PAIR, (all, name: string, value: string) =>
      (value !== REDACTED && isCredentialParam(name) ? `${name}=${REDACTED}` : all));
  }
  if (out.includes('":"')) {
    out = out.replace(JSON_MEMBER, (all, name: string, value: string) =>
      (value !== REDACTED && isCredentialKey(name) ? `"${name}":"${REDACTED}"` : all));
  }
  out = out.replace(BEARER, `$1$2${REDACTED}`).replace(SECRET_SHAPE, `$1_${REDACTED}`);
  return out.includes('://') ? out.replace(URL_PASSWORD, `$1:${REDACTED}@`) : out;
}

/**
 * Keys pino writes on every line itself. A logged object carrying one would repeat it in the line (`"level":40,…,
 * "level":"warning"`), which JSON parsers and log shippers resolve differently: it is kept under `logged_<key>`.
 */
const PINO_KEYS = ['level', 'time', 'pid', 'hostname', 'msg', 'service'];

function withoutPinoKeys(obj: Record<string, unknown>): Record<string, unknown> {
  if (!PINO_KEYS.some((k) => Object.hasOwn(obj, k))) return obj;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[PINO_KEYS.includes(k) ? `logged_${k}` : k] = v;
  return out;
}

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino({
    level,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    base: { service: 'waypost' },
    serializers: { err: serializeErr, req: serializeReq },
    formatters: { log: (obj) => withoutPinoKeys(redactObject(obj) as Record<string, unknown>) },
    hooks: { streamWrite: redactText },
  }, destination as never);
}
