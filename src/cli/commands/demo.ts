// `waypost demo`: the sample catalogue in a database of its own (by default), so it never mixes with a site's
// records; `--into` seeds DATABASE_URL's database while it holds none; `--remove` takes exactly the demo away again.
import type { Command } from 'commander';
import { apiRoot } from '../../config.js';
import { isCompleteCart, isLegacyEngine } from '../../records/normalize.js';
import { demoCatalogue } from '../../demo/catalogue.js';
import { RESOURCES } from '../../records/schemas.js';
import type { Core } from '../../core.js';
import type { Cli } from '../context.js';
import { recordedServerUrl } from '../running-server.js';
import { CliError } from '../fail.js';

/** Where `waypost demo` seeds unless told otherwise: beside the default database, never in it. */
export const DEMO_DATABASE_URL = 'sqlite:./data/demo.db';

/** Does the server at baseUrl serve the database just seeded (it knows the demo's new key)? Or answer at all? */
async function serverState(baseUrl: string, listUrl: string, headers: Record<string, string>)
  : Promise<'serves_demo' | 'other' | 'none'> {
  // Nothing listening is refused at once; a server's first answer on a busy machine (cold statements, a new key
  // read) can take seconds, and 1.5 s printed a wrong "start the server" hint beside a running one.
  try {
    const res = await fetch(listUrl, { headers, signal: AbortSignal.timeout(5000) });
    if (res.ok) return 'serves_demo';
    return (await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(5000) })).ok ? 'other' : 'none';
  } catch {
    return 'none';
  }
}

/**
 * Where a server is: the one that last listened on the demo's database (it recorded its URL there, whatever PORT it
 * was given), else this run's PORT/HOST/WAYPOST_BASE_URL (default http://127.0.0.1:8080).
 */
async function findServer(core: Core, headers: Record<string, string>)
  : Promise<{ baseUrl: string; server: 'serves_demo' | 'other' | 'none' }> {
  const recorded = await recordedServerUrl(core);
  const candidates = [...new Set([recorded, core.config.baseUrl].filter((u): u is string => u !== null))];
  let found: { baseUrl: string; server: 'serves_demo' | 'other' | 'none' } | null = null;
  for (const baseUrl of candidates) {
    const server = await serverState(baseUrl, `${baseUrl}${apiRoot(core.config)}/bookings?perpage=5`, headers);
    if (server === 'serves_demo') return { baseUrl, server };
    if (server === 'other') found ??= { baseUrl, server };
  }
  return found ?? { baseUrl: core.config.baseUrl, server: 'none' };
}

// What decides where the server listens and which database it reads: the hint repeats the ones this run was given,
// so the server started from it answers at the curl line's URL with the data just seeded.
const SERVER_VARIABLES = ['DATABASE_URL', 'PORT', 'HOST', 'WAYPOST_BASE_URL'] as const;

const shellQuote = (v: string) => (/^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);

/** `npm start`, prefixed with the variables above that were set for this run: `PORT=9090 DATABASE_URL=… npm start`. */
export function startCommand(env: Record<string, string | undefined>): string {
  const set = SERVER_VARIABLES.filter((name) => env[name] !== undefined && env[name] !== '');
  return [...set.map((name) => `${name}=${shellQuote(env[name]!)}`), 'npm start'].join(' ');
}

/** A database URL as printed: a PostgreSQL password masked. */
export function shownDatabase(url: string): string {
  if (!/^postgres(ql)?:/.test(url)) return url;
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the PostgreSQL database given';
  }
}

interface DemoFlags { json?: boolean; database?: string; into?: boolean; remove?: boolean }

export function registerDemo(program: Command, cli: Cli): void {
  program.command('demo')
    .description('Seed a sample travel catalogue in a database of its own (default ' + DEMO_DATABASE_URL + ') and '
      + 'create an API key with all read permissions, then print how to start a server on it and a curl command')
    .option('--database <url>', `the demo's database (default ${DEMO_DATABASE_URL}); with --remove, where to remove`)
    .option('--into', 'seed the database DATABASE_URL names instead, only while it holds no site\'s records')
    .option('--remove', 'remove the demo\'s records, the events and deliveries they caused and its API keys from '
      + 'DATABASE_URL\'s database (or --database\'s); a site\'s records stay')
    .option('--json', 'machine-readable output')
    .action(async (opts: DemoFlags) => {
      if (opts.into && opts.database) throw new CliError('invalid_argument', 'give --into or --database, not both');
      if (opts.remove && opts.into) throw new CliError('invalid_argument', '--remove works on DATABASE_URL already');
      if (opts.remove) return remove(cli, opts);
      return seed(cli, opts);
    });
}

async function remove(cli: Cli, opts: DemoFlags): Promise<void> {
  const { removeDemo } = await import('../../demo/remove.js'); // loaded to run, not for --help
  const result = await cli.withWaypost(
    async (wp) => ({ removed: await removeDemo(wp.core), url: wp.config.databaseUrl }),
    { databaseUrl: opts.database });
  const { removed } = result;
  const total = Object.values(removed.records).reduce((s, n) => s + n, 0);
  cli.output(opts.json, { database: shownDatabase(result.url), removed }, () => total + removed.api_keys === 0
    ? `No demo in ${shownDatabase(result.url)}: nothing removed.`
    : [
      `Removed the demo from ${shownDatabase(result.url)}:`,
      ...RESOURCES.map((r) => `  ${r.padEnd(10)} ${String(removed.records[r]).padStart(4)}`),
      `  ${removed.events} events they caused, with their ${removed.deliveries} deliveries`,
      `  ${removed.api_keys} API key${removed.api_keys === 1 ? '' : 's'} made by \`waypost demo\``,
      'Records a site sent were left as they were.',
    ].join('\n'));
}

async function seed(cli: Cli, opts: DemoFlags): Promise<void> {
  const databaseUrl = opts.into ? undefined : opts.database ?? DEMO_DATABASE_URL;
  const [{ markDemoKey, seedDemo }, { createApiKey, PERMISSIONS }] = await Promise.all([
    import('../../demo/seed.js'), import('../../api/keys.js'), // loaded to run, not for --help
  ]);
  const result = await cli.withWaypost(async (wp) => {
    const seeded = await seedDemo(wp.core);
    const label = `Demo key ${new Date(wp.core.clock.now()).toISOString().slice(0, 16).replace('T', ' ')}`;
    const key = await createApiKey(wp.core, { label, permissions: PERMISSIONS });
    await markDemoKey(wp.core, key.id);
    const { baseUrl, server } = await findServer(wp.core, { 'access-token': key.key, 'access-secret': key.secret });
    const url = `${baseUrl}${apiRoot(wp.config)}/bookings?perpage=5`;
    const curl = `curl -s -H 'Access-Token: ${key.key}' -H 'Access-Secret: ${key.secret}' '${url}'`;
    const postman = `${baseUrl}${apiRoot(wp.config)}/postman.json`;
    return { seeded, key, curl, postman, baseUrl, server, url: wp.config.databaseUrl };
  }, { databaseUrl });

  const bookings = demoCatalogue().bookings;
  const legacy = bookings.filter((b) => isLegacyEngine(b.data.engine_version)).length;
  const incomplete = bookings
    .filter((b) => !isLegacyEngine(b.data.engine_version) && !isCompleteCart(b.data.cart_version)).length;
  const { key } = result;
  const running = result.server === 'serves_demo';
  const start = startCommand({ ...cli.io.env, DATABASE_URL: result.url });
  cli.output(opts.json, {
    database: shownDatabase(result.url),
    seeded: result.seeded,
    legacy_bookings: legacy,
    incomplete_bookings: incomplete,
    key: { id: key.id, label: key.label, key: key.key, secret: key.secret, permissions: key.permissions },
    curl: result.curl,
    postman: result.postman,
    server_running: running,
    ...(running ? {} : { start_command: start }),
  }, () => [
    opts.into
      ? `Seeded the demo catalogue into DATABASE_URL's database, ${shownDatabase(result.url)}:`
      : `Seeded the demo catalogue into ${shownDatabase(result.url)}, a database of its own (never DATABASE_URL's, `
        + 'so a site\'s records never mix with it):',
    ...RESOURCES.map((r) => {
      const s = result.seeded[r];
      return `  ${r.padEnd(10)} ${String(s.created).padStart(4)} new, ${s.changed} changed, `
        + `${s.unchanged} unchanged`;
    }),
    `  ${legacy} bookings predate engine 6.7.0 (stored, hidden from the API); `
      + `${incomplete} come from cart 3.0 (data_complete: false).`,
    '',
    `Created API key "${key.label}" with all read permissions:`,
    `  id      ${key.id}`,
    `  key     ${key.key}`,
    `  secret  ${key.secret}   (shown only now; store it)`,
    '',
    'Try it:',
    `  ${result.curl}`,
    `Or in Postman: import ${result.postman} and set its accessToken and accessSecret variables.`,
    ...(running ? [] : [
      '',
      result.server === 'other'
        ? `The server at ${result.baseUrl} reads another database: stop it, or start one on the demo's with another `
          + 'PORT (and run `demo` with that PORT too). The demo\'s server:'
        : `Nothing answers at ${result.baseUrl} yet: start the server on the demo's database first, then run the `
          + 'curl line:',
      `  ${start}`,
    ]),
    '',
    'Remove it again (records, the events they caused, its API keys): npx waypost demo --remove'
      + (opts.into ? '' : ` --database ${shellQuote(result.url)}`),
  ].join('\n'));
}
