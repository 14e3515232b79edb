// `waypost` CLI. Every command reads the same configuration as `serve` (environment variables).
import { Command } from 'commander';
import { ConfigError } from '../config.js';
import { AppError } from '../errors.js';
import { registerServe } from './commands/serve.js';
import { registerHostToken } from './commands/host-token.js';
import { registerKeys } from './commands/keys.js';
import { registerImport } from './commands/import.js';
import { registerDemo } from './commands/demo.js';
import { registerAdmin } from './commands/admin.js';
import { registerWebhooks } from './commands/webhooks.js';
import { registerDeliveries } from './commands/deliveries.js';
import { registerAlerts } from './commands/alerts.js';

const program = new Command();
program.name('waypost').description('Webhooks and a read-only REST API for a travel-booking product').showHelpAfterError();

registerServe(program);
registerHostToken(program);
registerKeys(program);
registerImport(program);
registerDemo(program);
registerAdmin(program);
registerWebhooks(program);
registerDeliveries(program);
registerAlerts(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`waypost: invalid configuration: ${err.message}`);
    process.exit(2);
  }
  if (err instanceof AppError) {
    console.error(`waypost: ${err.detail}`);
    process.exit(1);
  }
  throw err;
}
