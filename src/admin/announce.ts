// What `waypost serve` prints about the console: where it is, and on a fresh install the one-time setup link.
import type { Core } from '../core.js';
import { issueSetupToken, setupLink } from './setup.js';

/** `out`: where `serve` prints (its run's stderr). */
export async function announceConsole(core: Core, out: NodeJS.WritableStream = process.stderr): Promise<void> {
  const token = await issueSetupToken(core);
  if (token) {
    out.write(`  Console   ${core.config.baseUrl}/admin/\n\n`
      + '  No admin account yet. Create the first one with this one-time link (valid 24 hours):\n'
      + `    ${setupLink(core, token)}\n  or run: npx waypost admin create --email you@example.com\n\n`);
    core.log.info('no admin account yet: the one-time setup link was printed to the terminal');
  } else {
    out.write(`  Console   ${core.config.baseUrl}/admin/\n\n`);
  }
}
