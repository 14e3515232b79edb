// The REST API's event feed as `waypost listen` reads it: long polls of GET {api_root}/events, oldest first, after
// the last event handed on. A refusal (bad key, missing permission, a position older than the feed keeps) stops
// the run with the server's own words; an unreachable server is retried, since a developer restarts it often.
import { request } from 'undici';
import { CliError } from '../fail.js';
import type { FeedEvent } from './forward.js';

export interface FeedSource {
  /** The API root's URL, e.g. http://127.0.0.1:8080/rest/waypost/api/v1 */
  api: string;
  key: string;
  secret: string;
  /** Comma list of types, `booking.*` allowed (the feed's `types`). */
  types?: string;
  waitS: number;
}

async function get(source: FeedSource, query: Record<string, string>, signal: AbortSignal): Promise<unknown> {
  const url = new URL(`${source.api}/events`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  if (source.types) url.searchParams.set('types', source.types);
  const res = await request(url, {
    signal, headersTimeout: (source.waitS + 30) * 1000, bodyTimeout: 60_000,
    headers: { 'access-token': source.key, 'access-secret': source.secret, accept: 'application/json' },
  });
  const text = await res.body.text();
  if (res.statusCode === 200) return JSON.parse(text) as unknown;
  let detail = text.slice(0, 300);
  try {
    const problem = JSON.parse(text) as { detail?: string; title?: string };
    detail = problem.detail ?? problem.title ?? detail;
  } catch { /* not a problem document: the text as it came */ }
  const refused = res.statusCode === 401 || res.statusCode === 403;
  const hint = res.statusCode === 410
    ? ' Start again with --since (e.g. --since 1h) to replay what the feed still keeps.'
    : refused && /permission/i.test(detail)
      ? ' Give the key events.list (console: API Keys, or waypost keys update <id> --permissions …).'
      : refused ? ' Check --key/--secret (or WAYPOST_API_KEY/WAYPOST_API_SECRET).' : '';
  throw new CliError(`feed_${res.statusCode}`, `the event feed answered ${res.statusCode}: ${detail}${hint}`);
}

/** The newest event's id: where a first run starts, so it forwards what happens from now on (as stripe listen). */
export async function newestEventId(source: FeedSource, signal: AbortSignal): Promise<string | null> {
  const page = await get(source, { order: 'desc', perpage: '1' }, signal) as FeedEvent[];
  return page[0]?.id ?? null;
}

/** Events after `after` (or since a time), oldest first; waits up to waitS for the first one. */
export async function nextEvents(
  source: FeedSource, position: { after: string | null; since: string | null }, signal: AbortSignal,
): Promise<FeedEvent[]> {
  const query: Record<string, string> = { perpage: '100', wait: String(source.waitS) };
  if (position.after) query.after = position.after;
  else if (position.since) query.since = position.since;
  return await get(source, query, signal) as FeedEvent[];
}
