// `waypost` CLI. Every command reads the same configuration as `serve` (environment variables). Failures of any
// kind (configuration, arguments, service errors) end in one place, src/cli/fail.ts.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
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

// Started by bin/waypost.js with its heap flags: that launcher's IPC channel closes when it is gone (even SIGKILLed),
// and this process then stops as on SIGTERM instead of running on alone. The channel alone keeps nothing alive.
if (process.channel) {
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

// src/cli/main.ts and dist/cli/main.js both sit two folders below the package root.
const packageJson = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
const { version } = JSON.parse(packageJson) as { version: string };

// Decided from the arguments first (a parse error comes before any options are known), then from the command's
// own options once commander has parsed them.
let json = jsonInArgs(process.argv.slice(2));

const program = new Command();
// Before any command is added: subcommands copy these settings when they are created.
program.name('waypost').description('Webhooks and a read-only REST API for a travel-booking product')
  .version(version, '-V, --version', 'print the version')
  .showHelpAfterError()
  .exitOverride()
  .configureOutput({
    // With --json, commander's usage errors are reported as JSON by reportFailure instead of as text and help.
    writeErr: (s) => { if (!json) process.stderr.write(s); },
    outputError: (s, write) => { if (!json) write(s); },
  })
  .hook('preAction', (_program, command) => { json = Boolean(command.opts().json); });

registerServe(program);
registerHostToken(program);
registerKeys(program);
registerImport(program);
registerDemo(program);
registerAdmin(program);
registerWebhooks(program);
registerDeliveries(program);
registerAlerts(program);
registerSettings(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  // --help and --version end through exitOverride too, with exit code 0.
  process.exit(err instanceof CommanderError && err.exitCode === 0 ? 0 : reportFailure(err, json));
}
