import type { Command } from 'commander';
import { apiRoot } from '../../config.js';
import { createApiKey, PERMISSIONS } from '../../api/keys.js';
import { seedDemo } from '../../demo/seed.js';
import { isCompleteCart, isLegacyEngine } from '../../records/normalize.js';
import { demoCatalogue } from '../../demo/catalogue.js';
import { RESOURCES } from '../../records/schemas.js';
import { output, withWaypost } from '../context.js';

/** Is a Waypost server answering at baseUrl? (Only decides whether to print the "npm start" hint.) */
async function serverRunning(baseUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(1500) });
    return res.ok;
  } catch {
    return false;
  }
}

// What decides where the server listens and which database it reads: the hint repeats the ones this run was given,
// so the server started from it answers at the curl line's URL with the data just seeded.
const SERVER_VARIABLES = ['DATABASE_URL', 'PORT', 'HOST', 'WAYPOST_BASE_URL'] as const;

const shellQuote = (v: string) => (/^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);

/** `npm start`, prefixed with the variables above that were set for this run: `PORT=9090 DATABASE_URL=… npm start`. */
export function startCommand(env: NodeJS.ProcessEnv): string {
  const set = SERVER_VARIABLES.filter((name) => env[name] !== undefined && env[name] !== '');
  return [...set.map((name) => `${name}=${shellQuote(env[name]!)}`), 'npm start'].join(' ');
}

export function registerDemo(program: Command): void {
  program.command('demo')
    .description('Seed a sample travel catalogue and create an API key with all read permissions, '
      + 'then print a curl command to try')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      const result = await withWaypost(async (wp) => {
        const seeded = await seedDemo(wp.core);
        const label = `Demo key ${new Date(wp.core.clock.now()).toISOString().slice(0, 16).replace('T', ' ')}`;
        const key = await createApiKey(wp.core, { label, permissions: PERMISSIONS });
        const url = `${wp.config.baseUrl}${apiRoot(wp.config)}/bookings?perpage=5`;
        const curl = `curl -s -H 'Access-Token: ${key.key}' -H 'Access-Secret: ${key.secret}' '${url}'`;
        const postman = `${wp.config.baseUrl}${apiRoot(wp.config)}/postman.json`;
        return {
          seeded, key, curl, postman, baseUrl: wp.config.baseUrl, database: wp.core.store.dialect,
          running: await serverRunning(wp.config.baseUrl),
        };
      });

      const bookings = demoCatalogue().bookings;
      const legacy = bookings.filter((b) => isLegacyEngine(b.data.engine_version)).length;
      const incomplete = bookings
        .filter((b) => !isLegacyEngine(b.data.engine_version) && !isCompleteCart(b.data.cart_version)).length;
      const { key } = result;
      output(opts.json, {
        seeded: result.seeded,
        legacy_bookings: legacy,
        incomplete_bookings: incomplete,
        key: { id: key.id, label: key.label, key: key.key, secret: key.secret, permissions: key.permissions },
        curl: result.curl,
        postman: result.postman,
        server_running: result.running,
        ...(result.running ? {} : { start_command: startCommand(process.env) }),
      }, () => [
        `Seeded the demo catalogue (${result.database}):`,
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
        ...(result.running ? [] : [
          '',
          `Nothing answers at ${result.baseUrl} yet: start the server first, with the same settings,`
            + ' then run the curl line:',
          `  ${startCommand(process.env)}`,
        ]),
      ].join('\n'));
    });
}
