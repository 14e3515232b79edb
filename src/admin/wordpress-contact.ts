// The WordPress site's last contact, for the console's Connect WordPress page: when the bridge last made an
// authenticated /host/v1 request, and what it says about itself. The bridge sends
// `User-Agent: WaypostBridge/<version>; WordPress/<version>`; it may add `WPTravelEngine/<version>` to it and the
// headers X-Waypost-Site-Url (home_url()) and X-Waypost-Queue-Length (rows in its retry queue). The site's address
// also comes with every sign-in-links request (its body's site_url).
//
// Cheap by design: a host write must not pay a database write to be seen. Each process keeps the latest contact in
// memory (the status route of the same process reads it exactly) and writes it to one `settings` row in the
// background at most once a minute, or at once when what the site reports changes (first contact, another plugin
// or WordPress version, another site), so that the console of another process sees it within a minute.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Core } from '../core.js';
import { readSetting, writeSetting } from '../store/settings.js';
import { parseSiteUrl } from './wordpress-link.js';

export const CONTACT_SETTING = 'wordpress_contact';
export const CONTACT_WRITE_EVERY_MS = 60_000;

export interface WordPressContact {
  last_contact_at: string;
  site_url: string | null;
  plugin_version: string | null;
  wordpress_version: string | null;
  wp_travel_engine_version: string | null;
  queue_length: number | null;
}

type Reported = Omit<WordPressContact, 'last_contact_at'>;

interface Tracker {
  latest: WordPressContact | null;
  writtenAt: number; // clock time of the last write this process started; -Infinity: none yet
  writtenKey: string; // what the site reported at that write (versions, address)
  writing: boolean;
}

const trackers = new WeakMap<Core, Tracker>();

function trackerOf(core: Core): Tracker {
  let tracker = trackers.get(core);
  if (!tracker) {
    tracker = { latest: null, writtenAt: -Infinity, writtenKey: '', writing: false };
    trackers.set(core, tracker);
  }
  return tracker;
}

const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,39}$/;
const cleanVersion = (v: string | undefined) => (v !== undefined && VERSION.test(v) ? v : null);

/** `WaypostBridge/0.1.0; WordPress/6.1.1; WPTravelEngine/6.8.0` → the versions (any order; others skipped). */
export function parseBridgeAgent(agent: string | undefined): Pick<Reported,
  'plugin_version' | 'wordpress_version' | 'wp_travel_engine_version'> | null {
  if (!agent || agent.length > 500) return null;
  const products = new Map<string, string>();
  for (const m of agent.matchAll(/([A-Za-z][A-Za-z0-9_-]*)\/([^\s;]+)/g)) products.set(m[1]!.toLowerCase(), m[2]!);
  if (!products.has('waypostbridge')) return null;
  return {
    plugin_version: cleanVersion(products.get('waypostbridge')),
    wordpress_version: cleanVersion(products.get('wordpress')),
    wp_travel_engine_version: cleanVersion(products.get('wptravelengine') ?? products.get('wp-travel-engine')),
  };
}

function header(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function siteUrlOf(raw: unknown): string | null {
  if (raw === undefined || raw === null) return null;
  try {
    return parseSiteUrl(raw);
  } catch {
    return null; // a bad address is the route's to refuse; here it is just not recorded
  }
}

/** What a host request says about the site; null when it does not come from the bridge. */
export function reportedBy(req: FastifyRequest): Reported | null {
  const agent = parseBridgeAgent(header(req, 'user-agent'));
  if (!agent) return null;
  const queue = header(req, 'x-waypost-queue-length');
  const body = req.body as { site_url?: unknown } | undefined;
  const fromBody = req.routeOptions.url?.endsWith('/sign-in-links') && body && typeof body === 'object'
    ? siteUrlOf(body.site_url) : null;
  return {
    ...agent,
    site_url: siteUrlOf(header(req, 'x-waypost-site-url')) ?? fromBody,
    queue_length: queue !== undefined && /^\d{1,9}$/.test(queue) ? Number(queue) : null,
  };
}

/** Newer values win; a value the newer one does not report (null) keeps the older one's. */
function merged(older: WordPressContact | null, newer: WordPressContact): WordPressContact {
  if (!older) return newer;
  const pick = <K extends keyof Reported>(k: K) => newer[k] ?? older[k];
  return {
    last_contact_at: newer.last_contact_at > older.last_contact_at ? newer.last_contact_at : older.last_contact_at,
    site_url: pick('site_url'), plugin_version: pick('plugin_version'), wordpress_version: pick('wordpress_version'),
    wp_travel_engine_version: pick('wp_travel_engine_version'), queue_length: pick('queue_length'),
  };
}

const keyOf = (c: WordPressContact) =>
  JSON.stringify([c.site_url, c.plugin_version, c.wordpress_version, c.wp_travel_engine_version]);

async function readStored(core: Core): Promise<WordPressContact | null> {
  const value = await readSetting(core.db, CONTACT_SETTING);
  if (value === null) return null;
  try {
    return JSON.parse(value) as WordPressContact;
  } catch {
    return null;
  }
}

/** Read, merge, write: in the background, at most once a minute per process, so the read costs nothing per request. */
async function writeContact(core: Core, tracker: Tracker): Promise<void> {
  tracker.writing = true;
  try {
    await writeSetting(core.db, CONTACT_SETTING, JSON.stringify(merged(await readStored(core), tracker.latest!)));
  } finally {
    tracker.writing = false;
  }
}

/** Records one authenticated host request's contact. Never waits for, or fails on, the database. */
export function recordContact(core: Core, reported: Reported): void {
  const tracker = trackerOf(core);
  const now = core.clock.now();
  tracker.latest = merged(tracker.latest, { ...reported, last_contact_at: new Date(now).toISOString() });
  const key = keyOf(tracker.latest);
  if (tracker.writing || (key === tracker.writtenKey && now - tracker.writtenAt < CONTACT_WRITE_EVERY_MS)) return;
  tracker.writtenAt = now;
  tracker.writtenKey = key;
  writeContact(core, tracker).catch((err: unknown) => {
    tracker.writtenAt = -Infinity; // try again on the next request
    core.log.warn({ err }, 'could not record the WordPress site\'s last contact');
  });
}

/** The site's last contact as this process knows it, merged with what any process wrote. */
export async function lastContact(core: Core): Promise<WordPressContact | null> {
  const stored = await readStored(core);
  const mine = trackerOf(core).latest;
  return mine ? merged(stored, mine) : stored;
}

/**
 * Records each authenticated /host/v1 request (a matched host route whose answer is not the token's refusal, 401, or
 * a database outage, 503) after it is answered, so the host's latency does not include it.
 */
export function installWordPressContact(app: FastifyInstance, core: Core): void {
  app.addHook('onResponse', async (req, reply) => {
    if (!req.routeOptions.url?.startsWith('/host/v1/')) return;
    if (reply.statusCode === 401 || reply.statusCode === 503) return;
    const reported = reportedBy(req);
    if (reported) recordContact(core, reported);
  });
}
