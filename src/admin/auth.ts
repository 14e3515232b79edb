// Authentication for /admin/api: a bearer admin token (automation) or, for browsers, a session cookie plus a
// CSRF header on every state change (added by the console issue). Routes that must be public (sign-in, setup)
// set `config: { adminPublic: true }`; one hook reads it.
import type { FastifyRequest } from 'fastify';
import type { Core } from '../core.js';
import { unauthorized } from '../errors.js';
import { tokenMatches } from '../host/token.js';
import { ensureAdminToken } from './token.js';

export interface AdminPrincipal {
  kind: 'token' | 'session';
  adminId: string | null;
  email: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    admin?: AdminPrincipal;
  }
  interface FastifyContextConfig {
    adminPublic?: boolean;
  }
}

export function adminAuthHook(core: Core) {
  return async (req: FastifyRequest): Promise<void> => {
    if (req.routeOptions.config.adminPublic) return;
    const header = req.headers.authorization;
    const bearer = header ? /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() : undefined;
    if (bearer) {
      if (!tokenMatches(bearer, await ensureAdminToken(core))) throw unauthorized('invalid_admin_token', 'The admin token is not valid.');
      req.admin = { kind: 'token', adminId: null, email: null };
      return;
    }
    throw unauthorized('admin_auth_required', 'Sign in to the console, or send "Authorization: Bearer <admin token>" (see `waypost admin token`).');
  };
}
