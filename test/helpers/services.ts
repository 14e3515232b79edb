// Which real services the suites can use. Locally a missing PostgreSQL / Redis / Chromium skips its suites with a
// visible message; under CI=true a missing service fails the run instead.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo } from 'node:net';

export const CI = process.env.CI === 'true';
export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const WORDPRESS_DIR = process.env.WORDPRESS_DIR ?? '/usr/share/wordpress';

function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host });
    socket.setTimeout(1000);
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
  });
}

const warned = new Set<string>();
function report(service: string, available: boolean): boolean {
  if (available) return true;
  if (CI) throw new Error(`${service} is required when CI=true but is not reachable`);
  if (!warned.has(service)) {
    warned.add(service);
    console.warn(
      `\n⚠ SKIPPING suites that need ${service}: it is not reachable here (they run, and must pass, under CI=true)\n`);
  }
  return false;
}

export const hasPostgres = async () => report('PostgreSQL (127.0.0.1:5432)', await portOpen(5432));
export const hasRedis = async () => report('Redis (127.0.0.1:6379)', await portOpen(6379));
export const hasChromium = async () => report(`Chromium (${CHROMIUM})`, existsSync(CHROMIUM));

/**
 * The WordPress bridge's suites: PHP CLI with mysqli, the mysql client, Debian's WordPress and MariaDB
 * (127.0.0.1:3306).
 */
export async function hasWordPress(): Promise<boolean> {
  const php = spawnSync('php', ['-r', 'echo extension_loaded("mysqli") && extension_loaded("openssl") ? "ok" : "no";'],
    { encoding: 'utf8' });
  const mysql = spawnSync('mysql', ['--version'], { encoding: 'utf8' });
  const missing = [
    php.stdout !== 'ok' && 'PHP CLI with mysqli and openssl',
    mysql.status !== 0 && 'the mysql client',
    !existsSync(`${WORDPRESS_DIR}/wp-settings.php`) && `WordPress (${WORDPRESS_DIR})`,
    !(await portOpen(3306)) && 'MariaDB (127.0.0.1:3306)',
  ].filter(Boolean);
  return report(missing.length ? missing.join(', ') : 'WordPress', missing.length === 0);
}

/** A TCP port nobody listens on right now (for a server started by a child process). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
