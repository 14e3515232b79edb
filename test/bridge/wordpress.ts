// A throwaway WordPress site for the bridge's tests: Debian's WordPress (read-only, so wp-admin and the top-level
// files are copied and wp-includes is linked) in a temp dir, its own MariaDB database (a WP Travel Engine fixture
// dump or a fresh install), our own wp-config.php, the given plugins linked and activated, and `php -S` serving it.
// WP Travel Engine itself is never loaded: the fixtures hold the data it wrote.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, WORDPRESS_DIR } from '../helpers/services.js';

export { hasWordPress } from '../helpers/services.js';

export type Fixture = 'wpte-6.8.0' | 'wpte-upgraded-from-6.6.8' | 'wpte-upgraded-and-migrated';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The bridge plugin of this repository. */
export const BRIDGE_DIR = path.join(REPO, 'integrations/wordpress/waypost-bridge');
/** WP Travel Engine's checkout replayed (PHP, no opening tag), for the tests' and the benchmark's mu-plugins. */
export const checkoutReplay = () =>
  readFileSync(path.join(REPO, 'test/bridge/checkout-replay.php'), 'utf8').replace(/^<\?php\n/, '');
const MYSQL_ARGS = ['-h', '127.0.0.1', '-P', '3306', '-u', 'root'];

/** Where the WP Travel Engine fixtures are: $WPTE_FIXTURES, else in the repository, else beside it (../shared). */
export function fixturesDir(): string {
  const candidates = [
    process.env.WPTE_FIXTURES,
    path.join(REPO, 'test/fixtures/wp-travel-engine'),
    path.resolve(REPO, '../shared/fixtures/wp-travel-engine'),
  ].filter((d): d is string => Boolean(d));
  const found = candidates.find((d) => existsSync(path.join(d, 'wpte-6.8.0.sql')));
  if (!found) throw new Error(`WP Travel Engine fixtures not found in ${candidates.join(', ')}`);
  return found;
}

/** A fixture's truth file (every record as the product's own model classes read it back). */
export function truth(fixture: Fixture): any {
  return JSON.parse(readFileSync(path.join(fixturesDir(), `${fixture}.truth.json`), 'utf8'));
}

export interface StartOptions {
  fixture?: Fixture;
  /** Plugin directories to link into wp-content/plugins and activate (activation hooks run). */
  plugins?: string[];
  /** Extra wp-config.php constants, e.g. WAYPOST_URL. */
  constants?: Record<string, string | boolean | number>;
}

let rewrites = 0;
/**
 * Rewrites a PHP file of a running site (wp-config.php) so that the next request runs the new text. OPcache compares
 * mtimes in whole seconds, and two rewrites can fall in one: each gets a later mtime of its own.
 */
export async function rewritePhp(file: string, text: string): Promise<void> {
  await writeFile(file, text);
  const at = Math.floor(Date.now() / 1000) + 10 + ++rewrites;
  await utimes(file, at, at);
}

export interface WordPress {
  /** http://127.0.0.1:<port> (siteurl and home). */
  url: string;
  /** The site's directory (ABSPATH). */
  dir: string;
  /** Its MariaDB database name. */
  db: string;
  /** Runs PHP with WordPress loaded (wp-load.php) and returns its stdout; rejects on a non-zero exit. */
  php(code: string): Promise<string>;
  /** Runs SQL with the mysql client on the site's database; returns its tab-separated output (no headers). */
  sql(query: string): Promise<string>;
  close(): Promise<void>;
}

/** Runs a command to completion; rejects with its stderr on a non-zero exit. */
function run(command: string, args: string[], options: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {
  }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.once('error', reject);
    child.once('close', (code) => {
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command} exited with ${code}\n${stderr}\n${stdout}`.trim()));
    });
    child.stdin.end(options.input ?? '');
  });
}

export function mysql(database: string | null, query: string): Promise<string> {
  return run('mysql', [...MYSQL_ARGS, '-N', '-B', ...(database ? [database] : [])], { input: query });
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`php -S exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' });
      socket.once('connect', () => { socket.destroy(); resolve(true); });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`php -S did not listen on ${port} within ${timeoutMs} ms`);
}

const phpString = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const phpValue = (v: string | boolean | number) => (typeof v === 'string' ? phpString(v) : String(v));

function wpConfig(db: string, url: string, constants: Record<string, string | boolean | number>): string {
  const salt = () => randomBytes(32).toString('base64');
  const defines: Record<string, string | boolean | number> = {
    DB_NAME: db, DB_USER: 'root', DB_PASSWORD: '', DB_HOST: '127.0.0.1:3306', DB_CHARSET: 'utf8mb4', DB_COLLATE: '',
    AUTH_KEY: salt(), SECURE_AUTH_KEY: salt(), LOGGED_IN_KEY: salt(), NONCE_KEY: salt(),
    AUTH_SALT: salt(), SECURE_AUTH_SALT: salt(), LOGGED_IN_SALT: salt(), NONCE_SALT: salt(),
    WP_HOME: url, WP_SITEURL: url, WP_DEBUG: false, WP_DEBUG_DISPLAY: false, FS_METHOD: 'direct',
    AUTOMATIC_UPDATER_DISABLED: true, WP_AUTO_UPDATE_CORE: false,
    // No calls to wordpress.org from version checks; this host (127.0.0.1, any port) stays reachable.
    WP_HTTP_BLOCK_EXTERNAL: true,
    ...constants,
  };
  return [
    '<?php',
    '// Written by test/bridge/wordpress.ts for one test site.',
    ...Object.entries(defines).map(([k, v]) => `if ( ! defined( '${k}' ) ) { define( '${k}', ${phpValue(v)} ); }`),
    "$table_prefix = 'wp_';",
    "if ( ! defined( 'ABSPATH' ) ) { define( 'ABSPATH', __DIR__ . '/' ); }",
    "require_once ABSPATH . 'wp-settings.php';",
    '',
  ].join('\n');
}

// Pretty permalinks under `php -S`: files and directories as they are, everything else to index.php.
const ROUTER = `<?php
$path = rawurldecode( (string) parse_url( $_SERVER['REQUEST_URI'], PHP_URL_PATH ) );
if ( '/' !== $path && file_exists( __DIR__ . $path ) ) {
	return false;
}
$_SERVER['SCRIPT_NAME'] = '/index.php';
$_SERVER['SCRIPT_FILENAME'] = __DIR__ . '/index.php';
require __DIR__ . '/index.php';
`;

// A theme, so front-end requests render something (Debian ships none).
const THEME_STYLE = '/*\nTheme Name: Waypost Test\n*/\n';
const THEME_INDEX = '<?php\nget_header();\n'
  + "while ( have_posts() ) { the_post(); the_title( '<h1>', '</h1>' ); the_content(); }\nget_footer();\n";

/** The main file of a plugin directory (the PHP file with a "Plugin Name:" header). */
async function pluginMainFile(dir: string): Promise<string> {
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('.php')).sort()) {
    if (/^[ \t/*#@]*Plugin Name:/im.test(readFileSync(path.join(dir, name), 'utf8').slice(0, 8192))) return name;
  }
  throw new Error(`no plugin main file in ${dir}`);
}

/**
 * Starts a WordPress site. Call close() (afterAll) to stop PHP and drop the database.
 * The caller checks hasWordPress() first (skip locally, fail under CI=true).
 */
export async function startWordPress(options: StartOptions = {}): Promise<WordPress> {
  const id = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const db = `waypost_wp_${id}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'waypost-wp-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let server: ChildProcess | null = null;
  let scriptNo = 0;

  const php = (code: string) => runPhp(code, '');
  const runPhp = async (code: string, prelude: string): Promise<string> => {
    const body = code.replace(/^\s*<\?php/, '');
    const file = path.join(dir, `.waypost-test-${++scriptNo}.php`);
    await writeFile(file, [
      '<?php',
      `$_SERVER['HTTP_HOST'] = ${phpString(`127.0.0.1:${port}`)};`,
      "$_SERVER['SERVER_NAME'] = '127.0.0.1';",
      `$_SERVER['SERVER_PORT'] = '${port}';`,
      "$_SERVER['REQUEST_URI'] = '/';",
      "$_SERVER['REQUEST_METHOD'] = 'GET';",
      prelude,
      `require ${phpString(path.join(dir, 'wp-load.php'))};`,
      body,
      '',
    ].join('\n'));
    try {
      return await run('php', ['-d', 'memory_limit=1024M', '-d', 'display_errors=stderr', '-d',
        'error_reporting=E_ALL & ~E_DEPRECATED', file], { cwd: dir });
    } finally {
      await rm(file, { force: true });
    }
  };

  const close = async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r));
      try { process.kill(-server.pid!, 'SIGTERM'); } catch { server.kill('SIGTERM'); }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    }
    await mysql(null, `DROP DATABASE IF EXISTS \`${db}\``).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };

  try {
    // Files: our own wp-config.php and wp-content; wp-admin and the top-level files copied (they find wp-load.php
    // and wp-config.php through their own path), wp-includes linked (it only uses ABSPATH).
    for (const entry of await readdir(WORDPRESS_DIR)) {
      if (['wp-config.php', 'wp-content', '.htaccess'].includes(entry)) continue;
      const from = path.join(WORDPRESS_DIR, entry);
      if (entry === 'wp-includes') await symlink(from, path.join(dir, entry));
      else await cp(from, path.join(dir, entry), { recursive: true, verbatimSymlinks: true });
    }
    await mkdir(path.join(dir, 'wp-content/plugins'), { recursive: true });
    await mkdir(path.join(dir, 'wp-content/uploads'), { recursive: true });
    await mkdir(path.join(dir, 'wp-content/themes/waypost-test'), { recursive: true });
    await writeFile(path.join(dir, 'wp-content/themes/waypost-test/style.css'), THEME_STYLE);
    await writeFile(path.join(dir, 'wp-content/themes/waypost-test/index.php'), THEME_INDEX);
    await writeFile(path.join(dir, 'wp-config.php'), wpConfig(db, url, options.constants ?? {}));
    await writeFile(path.join(dir, '.router.php'), ROUTER);

    // Database: the fixture's dump, or a fresh install.
    await mysql(null, `CREATE DATABASE \`${db}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    if (options.fixture) {
      await run('sh',
        ['-c', `mysql ${MYSQL_ARGS.join(' ')} '${db}' < '${path.join(fixturesDir(), `${options.fixture}.sql`)}'`]);
      await mysql(db, [
        `UPDATE wp_options SET option_value = '${url}' WHERE option_name IN ('siteurl', 'home');`,
        "UPDATE wp_options SET option_value = 'waypost-test' WHERE option_name IN ('template', 'stylesheet');",
        "UPDATE wp_options SET option_value = 'a:0:{}' WHERE option_name = 'active_plugins';",
        "DELETE FROM wp_options WHERE option_name = 'cron';",
      ].join('\n'));
    } else {
      await runPhp(`
        require_once ABSPATH . 'wp-admin/includes/upgrade.php';
        wp_install( 'Waypost test', 'admin', 'admin@example.org', false, '', 'admin-pass' );
        update_option( 'permalink_structure', '/%postname%/' );
        update_option( 'template', 'waypost-test' );
        update_option( 'stylesheet', 'waypost-test' );
      `, "define( 'WP_INSTALLING', true );");
    }

    // Plugins: linked, then activated through WordPress (so activation hooks run).
    const files: string[] = [];
    for (const pluginDir of options.plugins ?? []) {
      const name = path.basename(pluginDir);
      await symlink(path.resolve(pluginDir), path.join(dir, 'wp-content/plugins', name));
      files.push(`${name}/${await pluginMainFile(pluginDir)}`);
    }
    if (files.length) {
      await php(`
        require_once ABSPATH . 'wp-admin/includes/plugin.php';
        foreach ( ${`array( ${files.map(phpString).join(', ')} )`} as $file ) {
          $result = activate_plugin( $file );
          if ( is_wp_error( $result ) ) { fwrite( STDERR, $file . ': ' . $result->get_error_message() ); exit( 1 ); }
        }
      `);
    }

    // OPcache looks at a file's mtime on every request, so a rewritten wp-config.php (rewritePhp) counts at once.
    server = spawn('php', ['-d', 'opcache.revalidate_freq=0', '-S', `127.0.0.1:${port}`, '-t', dir,
      path.join(dir, '.router.php')], {
      cwd: dir,
      env: { ...process.env, PHP_CLI_SERVER_WORKERS: '4' },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true, // its own process group: close() stops the workers too
    });
    server.stderr!.resume();
    await waitForPort(port, server);
    // WP-Cron's lock from set-up requests (their loopback went nowhere: the server was not up yet) would hold cron
    // off for a minute.
    await mysql(db,
      "DELETE FROM wp_options WHERE option_name IN ('_transient_doing_cron', '_transient_timeout_doing_cron');");
    return { url, dir, db, php, sql: (query) => mysql(db, query), close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** spawnSync wrapper for quick checks in tests (e.g. `php -l`). */
export function runSync(command: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
