import type { Command } from 'commander';
import { Option } from 'commander';
import type { Cli } from '../context.js';
import { loadConfig, type Role } from '../../config.js';
import { CliError } from '../fail.js';
import { recordServerUrl } from '../running-server.js';
import { readPrivateTargets } from '../../webhooks/private-targets.js';

/** What serving needs, loaded when `serve` runs (not for every `waypost --help`: src/cli/context.ts). */
const serving = async () => {
  const [sdk, token, consoleFiles, announce, bulk, log] = await Promise.all([
    import('../../sdk.js'), import('../../host/token.js'), import('../../admin/console.js'),
    import('../../admin/announce.js'), import('../../host/bulk-load.js'), import('../../log.js'),
  ]);
  return {
    createWaypost: sdk.createWaypost, ensureHostToken: token.ensureHostToken,
    ensureConsoleBuilt: consoleFiles.ensureConsoleBuilt, announceConsole: announce.announceConsole,
    pendingBulkLoad: bulk.pendingBulkLoad, createLogger: log.createLogger,
  };
};

export function registerServe(program: Command, cli: Cli): void {
  program.command('serve')
    .description('Run Waypost: HTTP API and console (role api), delivery worker (role worker), or both (all)')
    .addOption(new Option('--role <role>', 'which parts to run').choices(['all', 'api', 'worker']).default('all'))
    .option('--metrics-port <port>', 'also serve /healthz, /readyz and /metrics (only) on this port '
      + '(default WAYPOST_METRICS_PORT; none when unset)')
    .action(async (opts: { role: Role; metricsPort?: string }) => {
      const { io } = cli;
      const config = metricsPortOption(opts.metricsPort);
      const {
        createWaypost, ensureHostToken, ensureConsoleBuilt, announceConsole, pendingBulkLoad, createLogger,
      } = await serving();
      // Logs on stdout, at LOG_LEVEL (default info), as createWaypost would by itself, but on this run's stdout.
      const logger = createLogger(loadConfig(io.env).logLevel, io.stdout);
      const wp = await createWaypost({ config, logger, env: io.env });
      // Without the indexes a bulk import builds at its end, lists would scan and search would miss records.
      const pending = opts.role === 'worker' ? [] : await pendingBulkLoad(wp.core.db);
      if (pending.length > 0) {
        await wp.close();
        throw new CliError('bulk_load_unfinished', `an import loading in bulk has not built its indexes yet `
          + `(${pending.length} to build): wait for it to finish, or, if it stopped, run the same \`waypost import\` `
          + 'again (it continues where it stopped and builds them)');
      }
      if (opts.role !== 'worker') ensureConsoleBuilt(wp.core.log);
      const { url, metricsUrl } = await wp.serve(opts.role);
      const base = wp.config.baseUrl;
      if (url) {
        await recordServerUrl(wp.core, url); // so `waypost demo` finds this server whatever its PORT
        const host = await ensureHostToken(wp.core);
        // Only a hash is stored, so a token made by this first start is shown now or never (then: --rotate).
        const rotate = '`waypost host-token --rotate`';
        const hostToken = host.source === 'created'
          ? `\n            token ${host.token}\n            (shown only this once: store it now; a new one: ${rotate})`
          : host.source === 'environment' ? '  (token: WAYPOST_HOST_TOKEN)' : `  (token set; a new one: ${rotate})`;
        wp.core.log.info({ url, role: opts.role, database: wp.core.store.dialect, metrics: metricsUrl },
          'waypost listening');
        const api = `${base}/${wp.config.restPrefix}/${wp.config.namespace}/api/v1`;
        // A newcomer's first webhook often targets their own machine: say at once whether that is allowed.
        const { allowed } = await readPrivateTargets(wp.core);
        const targets = allowed ? 'localhost and private addresses allowed (local development)'
          : 'public addresses only (for localhost: npx waypost settings set --allow-private-targets true)';
        io.stderr.write(`\nWaypost ${wp.config.version} is running (${opts.role}) on ${base}\n`
          + `  REST API  ${api}  (docs: ${api}/docs)\n  Host API  ${base}/host/v1${hostToken}\n`
          + `  Webhooks  ${targets}\n\n`);
        await announceConsole(wp.core, io.stderr);
      } else {
        wp.core.log.info({ role: opts.role, metrics: metricsUrl }, 'waypost worker running');
      }
      // Runs until SIGINT or SIGTERM (io.signals is the process when main.ts runs it), then closes and exits 0.
      const signal = await new Promise<string>((resolve) => {
        // `on`, not `once`: a second signal while closing is ignored, as the first one is being handled.
        io.signals?.on('SIGINT', () => resolve('SIGINT'));
        io.signals?.on('SIGTERM', () => resolve('SIGTERM'));
      });
      wp.core.log.info({ signal }, 'shutting down');
      await wp.close();
    });

  program.command('migrate')
    .description('Apply database migrations (also done on every start)')
    .option('--json', 'machine-readable output: {applied: [names]}')
    .action(async (opts: { json?: boolean }) => {
      const { migrate } = await import('../../store/migrate.js');
      await cli.withWaypost(async (wp) => {
        const applied = await migrate(wp.core.db);
        cli.output(opts.json, { applied }, () => (applied.length ? `applied: ${applied.join(', ')}`
          : 'database is up to date'));
      }, { migrate: false });
    });
}

/** `--metrics-port` as a config override (it wins over WAYPOST_METRICS_PORT). */
function metricsPortOption(value: string | undefined): { metricsPort?: number } {
  if (value === undefined) return {};
  const port = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(port >= 1 && port <= 65535)) {
    throw new CliError('invalid_option', `--metrics-port: expected a port from 1 to 65535, got "${value}"`, 2);
  }
  return { metricsPort: port };
}
