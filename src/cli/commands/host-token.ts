import type { Command } from 'commander';
import { ensureHostToken } from '../../host/token.js';
import { output, withWaypost } from '../context.js';

export function registerHostToken(program: Command): void {
  program.command('host-token')
    .description('Print the bearer token the booking product uses for the Host API')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      await withWaypost(async (wp) => {
        const token = await ensureHostToken(wp.core);
        output(opts.json, { token }, () => token);
      });
    });
}
