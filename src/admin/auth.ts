// Authentication for /admin/api: a bearer admin token (automation; no CSRF needed, browsers never send it on
// their own) or, for browsers, the session cookie plus a matching X-CSRF-Token header on every state change.
// Routes that must be public (sign-in, setup) set `config: { adminPublic: true }`; one hook reads it.
import type { FastifyRequest } from 'fastify';
import type { Core } from '../core.js';
import { forbidden, unauthorized } from '../errors.js';
import { tokenMatches } from '../tokens.js';
import { adminTokenCheck } from './token.js';
import { findSession, SESSION_COOKIE } from './sessions.js';

export interface AdminPrincipal {
  kind: 'token' | 'session';
  adminId: string | null;
  email: string | null;
  /** 'wordpress': a session a WordPress sign-in link opened (the audit log's actor type says so). */
  openedVia: 'wordpress' | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    admin?: AdminPrincipal;
  }
  interface FastifyContextConfig {
    adminPublic?: boolean;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function csrfMatches(presented: unknown, expected: string): boolean {
  return typeof presented === 'string' && presented.length > 0 && tokenMatches(presented, expected);
}

export function adminAuthHook(core: Core) {
  const adminTokenValid = adminTokenCheck(core);
  return async (req: FastifyRequest): Promise<void> => {
    if (req.routeOptions.config.adminPublic) return;
    const header = req.headers.authorization;
    const bearer = header ? /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() : undefined;
    if (bearer) {
      if (!(await adminTokenValid(bearer))) throw unauthorized('invalid_admin_token', 'The admin token is not valid.');
      req.admin = { kind: 'token', adminId: null, email: null, openedVia: null };
      return;
    }
    const cookie = req.cookies?.[SESSION_COOKIE];
    if (cookie) {
      const session = await findSession(core, cookie);
      if (!session) throw unauthorized('session_expired', 'Your session has ended. Sign in again.');
      if (!SAFE_METHODS.has(req.method) && !csrfMatches(req.headers['x-csrf-token'], session.csrfToken)) {
        throw forbidden('csrf_token_invalid',
          'Missing or wrong X-CSRF-Token header. Reload the console and try again.');
      }
      req.admin = {
        kind: 'session', adminId: session.admin.id, email: session.admin.email, openedVia: session.openedVia,
      };
      return;
    }
    throw unauthorized('admin_auth_required',
      'Sign in to the console, or send "Authorization: Bearer <admin token>" (see: npx waypost admin token).');
  };
}
