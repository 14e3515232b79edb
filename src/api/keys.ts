// API keys (DESIGN.md "API keys"): created, listed, disabled, re-enabled and deleted by admins (console and CLI).
// The key is the public half (`Access-Token`); the secret is shown once at creation and stored only as a hash.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { changedFields, recordAudit, type Actor, type AuditAction, type AuditDetails } from '../audit/record.js';
import type { Core } from '../core.js';
import { badRequest, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { API_RESOURCES } from '../records/schemas.js';
import type { ApiKeyRow, Database } from '../store/tables.js';
import { hashSecret } from '../tokens.js';

/** `<resource>.list` and `<resource>.read` for each public resource, and the event feed's (GET /events). */
export const PERMISSIONS = [...API_RESOURCES, 'events'].flatMap((r) => [`${r}.list`, `${r}.read`]) as readonly string[];

export interface ApiKeyInfo {
  id: string;
  label: string;
  key: string;
  permissions: string[];
  active: boolean;
  rate_limit: number | null;
  created_at: string;
  last_used_at: string | null;
}

export interface CreatedApiKey extends ApiKeyInfo {
  /** Shown once; only its hash is stored. */
  secret: string;
}

export interface CreateApiKeyInput {
  label: string;
  permissions: readonly string[];
  rateLimit?: number | null;
}

export function validatePermissions(permissions: readonly unknown[]): string[] {
  if (permissions.length === 0) {
    throw badRequest('invalid_permissions', `permissions: give at least one of ${PERMISSIONS.join(', ')}`, {
      field: 'permissions',
    });
  }
  for (const p of permissions) {
    if (typeof p !== 'string' || !PERMISSIONS.includes(p)) {
      throw badRequest('invalid_permissions',
        `permissions: unknown permission "${String(p)}" (expected any of ${PERMISSIONS.join(', ')})`,
        { field: 'permissions', permission: p });
    }
  }
  return [...new Set(permissions as string[])].sort((a, b) => PERMISSIONS.indexOf(a) - PERMISSIONS.indexOf(b));
}

function validateLabel(label: unknown): string {
  if (typeof label !== 'string' || label.trim() === '' || label.length > 200 || label.includes('\0')) {
    throw badRequest('invalid_label', 'label: give a name of 1 to 200 characters (no NUL characters)', {
      field: 'label',
    });
  }
  return label.trim();
}

function validateRateLimit(rateLimit: unknown): number | null {
  if (rateLimit === undefined || rateLimit === null) return null;
  if (typeof rateLimit !== 'number' || !Number.isInteger(rateLimit) || rateLimit < 1 || rateLimit > 1_000_000) {
    throw badRequest('invalid_rate_limit', 'rate_limit: expected a whole number of requests per window, 1 to 1000000', {
      field: 'rate_limit',
    });
  }
  return rateLimit;
}

export function toInfo(row: ApiKeyRow): ApiKeyInfo {
  return {
    id: row.id,
    label: row.label,
    key: row.key,
    permissions: JSON.parse(row.permissions) as string[],
    active: row.active === 1,
    rate_limit: row.rate_limit,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
  };
}

/** The key shortened for lists (the full key is shown only at creation, with the secret). */
export const keyPrefix = (key: string) => `${key.slice(0, 12)}…`;

/**
 * Records what an actor did to a key in the write's own transaction (src/audit/), by the key's id, never its key or
 * secret. Without an actor (tests, benchmarks) nothing is recorded.
 */
async function audit(
  db: Kysely<Database>, core: Core, actor: Actor | undefined, action: AuditAction, id: string,
  details: AuditDetails | null = null,
): Promise<void> {
  await recordAudit(core, actor, { action, targetType: 'key', targetId: id, details }, db);
}

export async function createApiKey(core: Core, input: CreateApiKeyInput, actor?: Actor): Promise<CreatedApiKey> {
  const label = validateLabel(input.label);
  if (!Array.isArray(input.permissions)) {
    throw badRequest('invalid_permissions', 'permissions: expected a list', { field: 'permissions' });
  }
  const permissions = validatePermissions(input.permissions);
  const rateLimit = validateRateLimit(input.rateLimit);
  const now = core.clock.now();
  const key = `wpk_${randomBytes(16).toString('hex')}`;
  const secret = `wps_${randomBytes(32).toString('base64url')}`;
  const row: ApiKeyRow = {
    id: newId('key', now),
    label,
    key,
    secret_hash: hashSecret(secret),
    permissions: JSON.stringify(permissions),
    active: 1,
    rate_limit: rateLimit,
    created_at: new Date(now).toISOString(),
    last_used_at: null,
  };
  await core.db.transaction().execute(async (trx) => {
    await trx.insertInto('api_keys').values(row).execute();
    await audit(trx, core, actor, 'key.created', row.id, { label, permissions });
  });
  return { ...toInfo(row), secret };
}

export async function listApiKeys(core: Core): Promise<ApiKeyInfo[]> {
  const rows = await core.db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(toInfo);
}

/** Finds a key by its id (`key_…`) or by the key itself (`wpk_…`). */
export async function getApiKey(core: Core, idOrKey: string): Promise<ApiKeyInfo> {
  const row = await core.db.selectFrom('api_keys').selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrKey), eb('key', '=', idOrKey)])).executeTakeFirst();
  if (!row) throw notFound(`API key ${idOrKey}`);
  return toInfo(row);
}

async function getApiKeyById(core: Core, id: string): Promise<ApiKeyInfo> {
  const row = await core.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`API key ${id}`);
  return toInfo(row);
}

/** Disables or re-enables a key; the next request with it sees the change (see src/api/key-lookup.ts). */
export async function setApiKeyActive(
  core: Core, idOrKey: string, active: boolean, actor?: Actor,
): Promise<ApiKeyInfo> {
  const { id } = await getApiKey(core, idOrKey);
  await core.db.transaction().execute(async (trx) => {
    await trx.updateTable('api_keys').set({ active: active ? 1 : 0 }).where('id', '=', id).execute();
    await audit(trx, core, actor, active ? 'key.enabled' : 'key.disabled', id);
  });
  core.bus.emit('api_keys.changed');
  return getApiKeyById(core, id);
}

export interface UpdateApiKeyInput {
  label?: string;
  permissions?: readonly string[];
  /** `null` returns the key to the server's default limit (WAYPOST_RATE_LIMIT). */
  rateLimit?: number | null;
}

/**
 * Changes a key's label, permissions or rate limit (by id or key); fields left out keep their value. The next
 * request with the key sees the change (the in-memory lookup is dropped, as for disable).
 */
export async function updateApiKey(
  core: Core, idOrKey: string, input: UpdateApiKeyInput, actor?: Actor,
): Promise<ApiKeyInfo> {
  const changes: Partial<Pick<ApiKeyRow, 'label' | 'permissions' | 'rate_limit'>> = {};
  if (input.label !== undefined) changes.label = validateLabel(input.label);
  if (input.permissions !== undefined) {
    if (!Array.isArray(input.permissions)) {
      throw badRequest('invalid_permissions', 'permissions: expected a list', { field: 'permissions' });
    }
    changes.permissions = JSON.stringify(validatePermissions(input.permissions));
  }
  if (input.rateLimit !== undefined) changes.rate_limit = validateRateLimit(input.rateLimit);
  const { id } = await getApiKey(core, idOrKey);
  await core.db.transaction().execute(async (trx) => {
    if (Object.keys(changes).length > 0) await trx.updateTable('api_keys').set(changes).where('id', '=', id).execute();
    const given = { label: input.label, permissions: input.permissions, rate_limit: input.rateLimit };
    await audit(trx, core, actor, 'key.updated', id, { fields: changedFields(given, Object.keys(given)) });
  });
  if (Object.keys(changes).length > 0) core.bus.emit('api_keys.changed');
  return getApiKeyById(core, id);
}

/** Deletes a key (by id or key); returns its id. */
export async function deleteApiKey(core: Core, idOrKey: string, actor?: Actor): Promise<string> {
  const { id } = await getApiKey(core, idOrKey);
  await core.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('api_keys').where('id', '=', id).execute();
    await audit(trx, core, actor, 'key.deleted', id);
  });
  core.bus.emit('api_keys.changed');
  return id;
}
