// `waypost host-token [--rotate]`: the bearer token the booking product sends to the Host API. Only its hash is
// stored (src/host/token.ts), so it is printed once, when created or rotated; WAYPOST_HOST_TOKEN, when set, wins.
import type { Command } from 'commander';
import { cliActor } from '../../audit/record.js';
import { ensureHostToken, rotateHostToken } from '../../host/token.js';
import type { Cli } from '../context.js';

/** `exists`: one was made earlier and cannot be shown; `environment`: WAYPOST_HOST_TOKEN's value. */
export type TokenStatus = 'created' | 'rotated' | 'exists' | 'environment';

/**
 * Prints a token: the token alone on stdout, so that `$(waypost … token)` captures it, and what to know on stderr.
 * An existing one cannot be shown; stderr says so and how to rotate, with exit 0 (nothing failed).
 */
export function printToken(
  cli: Cli, json: boolean | undefined, token: string | null, status: TokenStatus, what: string, rotate: string,
): void {
  if (json) return cli.output(true, { token, status }, () => '');
  if (token === null) {
    cli.io.stderr.write(`The ${what} was shown once, when it was created: Waypost keeps only its hash and `
      + `cannot show it again.\nRun \`${rotate}\` for a new one (the current one then stops working at once).\n`);
    return;
  }
  cli.io.stdout.write(`${token}\n`);
  const note = status === 'created' ? `store it now (\`${rotate}\` replaces it)` : 'the previous one no longer works';
  if (status !== 'environment') cli.io.stderr.write(`New ${what}, shown only this once: ${note}.\n`);
}

export function registerHostToken(program: Command, cli: Cli): void {
  program.command('host-token')
    .description('Create the bearer token the booking product uses for the Host API and print it once')
    .option('--rotate', 'make a new token and print it once; the current one stops working at once')
    .option('--json', 'machine-readable output: {token, status}, token null when it cannot be shown')
    .action(async (opts: { rotate?: boolean; json?: boolean }) => {
      await cli.withWaypost(async (wp) => {
        const rotate = 'waypost host-token --rotate';
        if (opts.rotate) {
          const token = await rotateHostToken(wp.core, cliActor());
          return printToken(cli, opts.json, token, 'rotated', 'host token', rotate);
        }
        const host = await ensureHostToken(wp.core);
        const status = host.source === 'stored' ? 'exists' : host.source;
        printToken(cli, opts.json, host.token, status, 'host token', rotate);
      });
    });
}
