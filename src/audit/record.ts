// Recording admin actions (issue 34): every door that changes webhooks, keys, settings, tokens or admin accounts,
// recovers, redelivers, sends, erases or exports calls recordAudit once the action has succeeded. The application
// only appends (migration 0031 refuses UPDATE); only retention pruning deletes (./retention.ts).
import { userInfo } from 'node:os';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Core } from '../core.js';
import { newId } from '../ids.js';
import type { Database } from '../store/tables.js';
import type { ActorType, AuditAction, AuditDetails } from './views.js';

export type { ActorType, AuditAction, AuditDetails } from './views.js';

/** Who did it and from where (ip: null for the CLI). */
export interface Actor {
  type: ActorType;
  name: string;
  ip: string | null;
}

export interface AuditEntry {
  action: AuditAction;
  /** What it acted on: 'webhook', 'key', 'settings', 'person'… and its id (for a person, never the e-mail). */
  targetType: string | null;
  targetId: string | null;
  /** Names of fields changed and the like; never a secret, a key, or a traveller's personal data. */
  details?: AuditDetails | null;
}

/**
 * The actor of an authenticated request: on /admin/api the admin principal (a console session: 'admin', or
 * 'wordpress' when a WordPress sign-in link opened it; the admin token: 'admin'); without one, the host token (the
 * host API's own authentication has let the request in).
 */
export function requestActor(req: FastifyRequest): Actor {
  const admin = req.admin;
  if (!admin) return { type: 'host', name: 'host token', ip: req.ip };
  if (admin.kind === 'token') return { type: 'admin', name: 'admin token', ip: req.ip };
  return { type: admin.openedVia ?? 'admin', name: `${admin.adminId} ${admin.email}`, ip: req.ip };
}

/** The CLI's actor: the OS user running it, or 'cli' where none can be read. */
export function cliActor(): Actor {
  let name = 'cli';
  try {
    name = userInfo().username || 'cli';
  } catch {
    // no passwd entry (some containers): 'cli' says enough
  }
  return { type: 'cli', name, ip: null };
}

/**
 * Appends one entry, after the action succeeded. `db`: a transaction to record within the action's own (default: a
 * statement of its own). Without an actor, nothing: the services that record in their own transaction take one from
 * the doors people use (requestActor, cliActor), and are called without by tests, benchmarks and the demo's seed.
 */
export async function recordAudit(
  core: Core, actor: Actor | undefined, entry: AuditEntry, db: Kysely<Database> = core.db,
): Promise<void> {
  if (!actor) return;
  const now = core.clock.now();
  await db.insertInto('audit_log').values({
    id: newId('aud', now), at: new Date(now).toISOString(), actor_type: actor.type, actor: actor.name.slice(0, 300),
    action: entry.action, target_type: entry.targetType, target_id: entry.targetId,
    details: entry.details ? JSON.stringify(entry.details) : null, ip: actor.ip,
  }).execute();
}

/** The names of the fields a change body gives, of those that `known` lists: what an update records. */
export function changedFields(body: unknown, known: readonly string[]): string[] {
  if (!body || typeof body !== 'object') return [];
  return known.filter((f) => (body as Record<string, unknown>)[f] !== undefined);
}
