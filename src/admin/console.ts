// Serves the console (the React app built into web/dist) at /admin/. Assets have content hashes in their names,
// so they are cached for a year; index.html is never cached. The build writes brotli and gzip copies beside them
// (src/build/precompress.ts), sent to clients that accept them. `waypost serve` builds the console on first start
// when web/dist is missing (ensureConsoleBuilt); until then /admin/ explains how to build it.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { Logger } from 'pino';
import { notFound } from '../errors.js';
import { precompressDir } from '../build/precompress.js';

// src/admin/console.ts and dist/admin/console.js are both two levels below the package root.
export const PACKAGE_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
export const CONSOLE_DIST = join(PACKAGE_ROOT, 'web', 'dist');

const isBuilt = () => existsSync(join(CONSOLE_DIST, 'index.html'));

const CONSOLE_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
  + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const NOT_BUILT_PAGE = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Waypost console</title>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;line-height:1.5;color:#1f2328">
<h1>The console is not built yet</h1>
<p>Run <code>npm run build</code> in the Waypost folder (or restart with <code>npm start</code>, which builds it on
first start), then reload this page.</p>
</body></html>`;

/** Builds the console with Vite when web/dist is missing. Returns false (after logging why) when it cannot. */
export function ensureConsoleBuilt(log: Logger): boolean {
  if (isBuilt()) return true;
  const vite = join(PACKAGE_ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  if (!existsSync(vite) || !existsSync(join(PACKAGE_ROOT, 'web', 'vite.config.ts'))) {
    log.warn('the admin console is not built and Vite is not installed: '
      + 'run "npm install" (or "npm run build") to build web/dist');
    return false;
  }
  process.stderr.write('Building the admin console (first start)…\n');
  // The production bundle whatever NODE_ENV the server runs with (Vite bundles React's dev build otherwise).
  const env = { ...process.env, NODE_ENV: 'production' };
  const args = [vite, 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'];
  const res = spawnSync(process.execPath, args, { cwd: PACKAGE_ROOT, stdio: 'inherit', env });
  if (res.status !== 0 || !isBuilt()) {
    log.warn('building the admin console failed: run "npm run build" to see why');
    return false;
  }
  precompressDir(CONSOLE_DIST);
  return true;
}

/** `GET /` (the server root, outside /admin): a person who opens the bare address lands in the console. */
export async function rootRedirect(app: FastifyInstance): Promise<void> {
  app.get('/', (_req, reply) => reply.redirect('/admin/', 302));
}

export async function consoleRoutes(app: FastifyInstance): Promise<void> {
  // serve:false: we route ourselves (SPA fallback, a helpful page when unbuilt); the plugin only adds sendFile,
  // which sends file.br or file.gz when the client accepts it and the build made one.
  await app.register(fastifyStatic, { serve: false, preCompressed: true });

  app.get('/', { prefixTrailingSlash: 'no-slash' }, (_req, reply) => reply.redirect('/admin/', 301));
  app.get('/*', (req, reply) => {
    const path = (req.params as { '*': string })['*'];
    if (path === 'api' || path.startsWith('api/')) throw notFound(`${req.method} ${req.url.split('?')[0]}`);
    if (!isBuilt()) {
      return reply.code(503).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT_PAGE);
    }
    const asset = path.startsWith('assets/') && !path.includes('..') && existsSync(join(CONSOLE_DIST, path));
    reply.header('vary', 'Accept-Encoding');
    if (asset) {
      return reply.header('cache-control', 'public, max-age=31536000, immutable')
        .sendFile(path, CONSOLE_DIST, { cacheControl: false });
    }
    // Everything else is the app: it routes by the URL hash.
    return reply.header('cache-control', 'no-store').header('x-frame-options', 'DENY')
      .header('content-security-policy', CONSOLE_CSP)
      .sendFile('index.html', CONSOLE_DIST, { cacheControl: false });
  });
}
