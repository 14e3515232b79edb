// `waypost admin create --email E [--password P]` (prompts, hidden, when no --password), `waypost admin list`,
// `waypost admin password` and `waypost admin token [--rotate]` (shown once: only its hash is stored).
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import { createAdmin, listAdmins, PASSWORD_MIN_LENGTH, setPassword } from '../../admin/accounts.js';
import { cliActor, recordAudit } from '../../audit/record.js';
import { notFound } from '../../errors.js';
import { ensureAdminToken, rotateAdminToken } from '../../admin/token.js';
import type { Cli, CliIo } from '../context.js';
import { CliError } from '../fail.js';
import { table } from '../table.js';
import { printToken } from './host-token.js';

/** Reads a line from the terminal without echoing it. */
function promptHidden(io: CliIo, question: string): Promise<string> {
  const stdin: NonNullable<CliIo['stdin']> = io.stdin ?? Readable.from([]); // none: read nothing, as /dev/null
  if (!stdin.isTTY) {
    // Piped input (e.g. `echo pw | waypost admin create …`): read the first line.
    return new Promise((resolve) => {
      let data = '';
      stdin.setEncoding('utf8');
      stdin.on('data', (chunk) => { data += chunk; });
      stdin.on('end', () => resolve(data.split(/\r?\n/)[0] ?? ''));
    });
  }
  io.stderr.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    stdin.setRawMode?.(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') {
          stdin.setRawMode?.(false);
          stdin.pause();
          stdin.off('data', onData);
          io.stderr.write('\n');
          resolve(value);
          return;
        }
        if (ch === '\u0003') {
          stdin.setRawMode?.(false);
          reject(new CliError('cancelled', 'cancelled', 130));
          return;
        }
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** The --password value, or one typed twice at a terminal (hidden), or the first line of piped input. */
async function passwordFrom(io: CliIo, option: string | undefined): Promise<string> {
  if (option !== undefined) return option;
  const password = await promptHidden(io, 'Password: ');
  if (io.stdin?.isTTY && (await promptHidden(io, 'Repeat password: ')) !== password) {
    throw new CliError('passwords_differ', 'the passwords do not match; nothing was changed');
  }
  return password;
}

export function registerAdmin(program: Command, cli: Cli): void {
  const admin = program.command('admin').description('Console accounts and the admin token for automation');

  admin.command('create')
    .description('Create a console admin account')
    .requiredOption('--email <email>', 'the admin\'s e-mail address (their sign-in name)')
    .option('--password <password>',
      `the password (at least ${PASSWORD_MIN_LENGTH} characters); prompted for, hidden, when omitted`)
    .option('--json', 'machine-readable output')
    .action(async (opts: { email: string; password?: string; json?: boolean }) => {
      const password = await passwordFrom(cli.io, opts.password);
      await cli.withWaypost(async (wp) => {
        // The account and its audit entry commit together.
        const created = await wp.core.db.transaction().execute(async (trx) => {
          const account = await createAdmin(wp.core, opts.email, password, trx);
          await recordAudit(wp.core, cliActor(), { action: 'admin.created', targetType: 'admin', targetId: account.id },
            trx);
          return account;
        });
        cli.output(opts.json, created, () => `Created admin ${created.email}. Sign in at ${wp.config.baseUrl}/admin/`);
      });
    });

  admin.command('list')
    .description('List console admin accounts (passwords are never shown)')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      await cli.withWaypost(async (wp) => {
        const admins = await listAdmins(wp.core.db);
        cli.output(opts.json, admins, () => table(
          ['ID', 'E-MAIL', 'CREATED', 'LAST SIGN-IN', 'MADE BY'],
          admins.map((a) => [a.id, a.email, a.created_at, a.last_login_at ?? 'never', a.created_via ?? 'password']),
          'No admin accounts yet. Create one with `waypost admin create --email you@example.com`.',
        ));
      });
    });

  admin.command('password')
    .description('Set a new password for an admin (signs them out everywhere and lifts a sign-in lockout)')
    .requiredOption('--email <email>', 'the admin\'s e-mail address')
    .option('--password <password>',
      `the new password (at least ${PASSWORD_MIN_LENGTH} characters); prompted for, hidden, when omitted`)
    .option('--json', 'machine-readable output')
    .action(async (opts: { email: string; password?: string; json?: boolean }) => {
      const password = await passwordFrom(cli.io, opts.password);
      await cli.withWaypost(async (wp) => {
        if (!(await setPassword(wp.core, opts.email, password, cliActor()))) {
          throw notFound(`The admin ${opts.email}`);
        }
        const email = opts.email.trim().toLowerCase();
        cli.output(opts.json, { email, password_changed: true, sessions_ended: true },
          () => `Password changed for ${email}; their sessions were ended.`);
      });
    });

  admin.command('token')
    .description('Create the bearer token for the admin JSON API and print it once (automation; browsers sign in)')
    .option('--rotate', 'make a new token and print it once; the current one stops working at once')
    .option('--json', 'machine-readable output: {token, status}, token null when it cannot be shown')
    .action(async (opts: { rotate?: boolean; json?: boolean }) => {
      await cli.withWaypost(async (wp) => {
        const token = opts.rotate ? await rotateAdminToken(wp.core, cliActor()) : await ensureAdminToken(wp.core);
        const status = opts.rotate ? 'rotated' : token ? 'created' : 'exists';
        printToken(cli, opts.json, token, status, 'admin token', 'waypost admin token --rotate');
      });
    });
}
