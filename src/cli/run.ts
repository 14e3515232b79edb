// `waypost` as a function: run(argv, io) parses the arguments, runs the command against io's streams and environment,
// and returns the exit code. main.ts runs it for the real process; tests run it in-process. Failures of any kind
// (configuration, arguments, service errors) end in one place, src/cli/fail.ts.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { Cli, type CliIo } from './context.js';
import { jsonInArgs, reportFailure } from './fail.js';
import { registerServe } from './commands/serve.js';
import { registerHostToken } from './commands/host-token.js';
import { registerKeys } from './commands/keys.js';
import { registerImport } from './commands/import.js';
import { registerDemo } from './commands/demo.js';
import { registerAdmin } from './commands/admin.js';
import { registerWebhooks } from './commands/webhooks.js';
import { registerDeliveries } from './commands/deliveries.js';
import { registerAlerts } from './commands/alerts.js';
import { registerSettings } from './commands/settings.js';
import { registerListen } from './commands/listen.js';
import { registerPrivacy } from './commands/privacy.js';
import { registerAudit } from './commands/audit.js';

export type { CliIo } from './context.js';

// src/cli/run.ts and dist/cli/run.js both sit two folders below the package root.
const packageJson = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
const { version } = JSON.parse(packageJson) as { version: string };

/** Runs `waypost <argv…>` (the arguments after the program's name) and resolves to its exit code. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const cli = new Cli(io);
  // Decided from the arguments first (a parse error comes before any options are known), then from the command's
  // own options once commander has parsed them.
  let json = jsonInArgs(argv);
  // A fresh program per run: commander keeps parsed options on its commands.
  const program = new Command();
  // Before any command is added: subcommands copy these settings when they are created.
  program.name('waypost').description('Webhooks and a read-only REST API for a travel-booking product')
    .version(version, '-V, --version', 'print the version')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (s) => { io.stdout.write(s); },
      // With --json, commander's usage errors are reported as JSON by reportFailure instead of as text and help.
      writeErr: (s) => { if (!json) io.stderr.write(s); },
      outputError: (s, write) => { if (!json) write(s); },
      // Help wraps at a terminal's width, else at commander's default (80), as it does for the process's streams.
      getOutHelpWidth: () => (io.stdout.isTTY ? io.stdout.columns : undefined) as number,
      getErrHelpWidth: () => (io.stderr.isTTY ? io.stderr.columns : undefined) as number,
    })
    .hook('preAction', (_program, command) => { json = Boolean(command.opts().json); });

  for (const register of [registerServe, registerHostToken, registerKeys, registerImport, registerDemo,
    registerAdmin, registerWebhooks, registerDeliveries, registerAlerts, registerSettings, registerListen,
    registerPrivacy, registerAudit]) {
    register(program, cli);
  }

  try {
    await program.parseAsync(argv, { from: 'user' });
    return cli.exitCode;
  } catch (err) {
    // --help and --version end through exitOverride too, with exit code 0.
    return err instanceof CommanderError && err.exitCode === 0 ? 0 : reportFailure(err, json, io.stderr);
  }
}
