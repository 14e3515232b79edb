import type { Command } from 'commander';
import { Option } from 'commander';
import { createWaypost } from '../../sdk.js';
import { migrate } from '../../store/migrate.js';
import { output, withWaypost } from '../context.js';
import { ensureHostToken } from '../../host/token.js';
import type { Role } from '../../config.js';
import { ensureConsoleBuilt } from '../../admin/console.js';
import { announceConsole } from '../../admin/announce.js';
import { pendingBulkLoad } from '../../host/bulk-load.js';
import { CliError } from '../fail.js';

export function registerServe(program: Command): void {
  program.command('serve')
    .description('Run Waypost: HTTP API and console (role api), delivery worker (role worker), or both (all)')
    .addOption(new Option('--role <role>', 'which parts to run').choices(['all', 'api', 'worker']).default('all'))
    .option('--metrics-port <port>', 'also serve /healthz, /readyz and /metrics (only) on this port '
      + '(default WAYPOST_METRICS_PORT; none when unset)')
    .action(async (opts: { role: Role; metricsPort?: string }) => {
      const wp = await createWaypost({ config: metricsPortOption(opts.metricsPort) });
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
        const host = await ensureHostToken(wp.core);
        // Only a hash is stored, so a token made by this first start is shown now or never (then: --rotate).
        const rotate = '`waypost host-token --rotate`';
        const hostToken = host.source === 'created'
          ? `\n            token ${host.token}\n            (shown only this once: store it now; a new one: ${rotate})`
          : host.source === 'environment' ? '  (token: WAYPOST_HOST_TOKEN)' : `  (token set; a new one: ${rotate})`;
        wp.core.log.info({ url, role: opts.role, database: wp.core.store.dialect, metrics: metricsUrl },
          'waypost listening');
        const api = `${base}/${wp.config.restPrefix}/${wp.config.namespace}/api/v1`;
        process.stderr.write(`\nWaypost ${wp.config.version} is running (${opts.role}) on ${base}\n`
          + `  REST API  ${api}  (docs: ${api}/docs)\n  Host API  ${base}/host/v1${hostToken}\n\n`);
        await announceConsole(wp.core);
      } else {
        wp.core.log.info({ role: opts.role, metrics: metricsUrl }, 'waypost worker running');
      }
      let stopping = false;
      const stop = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        wp.core.log.info({ signal }, 'shutting down');
        await wp.close();
        process.exit(0);
      };
      process.on('SIGINT', () => void stop('SIGINT'));
      process.on('SIGTERM', () => void stop('SIGTERM'));
    });

  program.command('migrate')
    .description('Apply database migrations (also done on every start)')
    .option('--json', 'machine-readable output: {applied: [names]}')
    .action(async (opts: { json?: boolean }) => {
      await withWaypost(async (wp) => {
        const applied = await migrate(wp.core.db);
        output(opts.json, { applied }, () => (applied.length ? `applied: ${applied.join(', ')}`
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
