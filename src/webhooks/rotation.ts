// Secret rotation with a grace period (DESIGN.md "Secret rotation"): the new secret signs at once, and the one it
// replaced keeps signing beside it until the grace period ends, so receivers can be updated without a failed
// delivery. Grace 0 is "Regenerate now", for a leaked secret: the old one stops at once.
import { recordAudit, type Actor } from '../audit/record.js';
import type { Core } from '../core.js';
import { badRequest, notFound } from '../errors.js';
import { iso } from '../records/normalize.js';
import { generateSecret, isSealed, openSecret, sealSecret } from './secrets.js';
import type { WebhookRow } from './tables.js';

export const DEFAULT_GRACE_SECONDS = 24 * 3600;
export const MAX_GRACE_SECONDS = 7 * 24 * 3600;

export interface RotatedSecret {
  /** The new secret: shown in this answer, and revealable later by an admin. */
  secret: string;
  grace_seconds: number;
  /** Until when the previous secret still signs (ISO 8601); null with grace 0. */
  previous_secret_expires_at: string | null;
}

/** The grace period of an admin-API body `{grace_seconds?}`; every 400 names the field. */
export function graceFromBody(body: unknown): number {
  if (body === undefined || body === null) return DEFAULT_GRACE_SECONDS;
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('invalid_body', 'the body must be a JSON object', { field: '(body)' });
  }
  const unknown = Object.keys(body).find((k) => k !== 'grace_seconds');
  if (unknown) {
    const detail = `${unknown}: is not a rotation field (expected grace_seconds)`;
    throw badRequest('invalid_field', detail, { field: unknown });
  }
  const value = (body as { grace_seconds?: unknown }).grace_seconds;
  return value === undefined ? DEFAULT_GRACE_SECONDS : checkGraceSeconds(value);
}

export function checkGraceSeconds(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_GRACE_SECONDS) {
    throw badRequest('invalid_field', `grace_seconds: must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS} `
      + `(7 days), got ${JSON.stringify(value)}`, { field: 'grace_seconds' });
  }
  return value;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/**
 * The CLI's `--grace`: `0`, or a whole number with a unit, e.g. `30m`, `24h`, `7d`; 0 to 7 days. Not the `ms`
 * package: it also takes `1.5h`, `2 weeks` or a bare `90` (milliseconds), which we want refused, not guessed.
 */
export function parseGrace(text: string): number {
  const match = /^(\d+)([smhd])?$/.exec(text.trim());
  const seconds = match && (match[2] || match[1] === '0') ? Number(match[1]) * UNIT_SECONDS[match[2] ?? 's']! : NaN;
  if (!(seconds >= 0 && seconds <= MAX_GRACE_SECONDS)) {
    throw badRequest('invalid_field', `--grace: expected 0 or a duration from 1s to 7d such as 30m, 24h or 7d, `
      + `got ${JSON.stringify(text)}`, { field: 'grace' });
  }
  return seconds;
}

/**
 * Makes a new secret. The current one becomes the previous secret until now + grace (replacing any previous one
 * still in its grace period); with grace 0 there is no previous secret. A current secret saved before
 * WAYPOST_SECRET_KEY was set is sealed on its way to previous_secret, so both are encrypted at rest alike.
 */
export async function rotateSecret(
  core: Core, id: string, graceSeconds = DEFAULT_GRACE_SECONDS, actor?: Actor,
): Promise<RotatedSecret> {
  const grace = checkGraceSeconds(graceSeconds);
  const secret = generateSecret();
  const now = core.clock.now();
  const expiresAt = grace > 0 ? now + grace * 1000 : null;
  await core.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('webhooks').select('secret').where('id', '=', id).where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!row) throw notFound(`Webhook ${id}`);
    const previous = grace === 0 ? null
      : isSealed(row.secret) ? row.secret : sealSecret(core.config, row.secret);
    await trx.updateTable('webhooks').set({
      previous_secret: previous,
      previous_secret_expires_at: expiresAt,
      secret: sealSecret(core.config, secret),
      updated_at: iso(now),
    }).where('id', '=', id).execute();
    // Recorded with the rotation it describes (src/audit/), never the secret.
    await recordAudit(core, actor, { action: 'webhook.secret_rotated', targetType: 'webhook', targetId: id,
      details: { grace_s: grace } }, trx);
  });
  core.log.info({ webhookId: id, graceSeconds: grace }, 'webhook secret rotated');
  return { secret, grace_seconds: grace, previous_secret_expires_at: expiresAt === null ? null : iso(expiresAt) };
}

/** When the previous secret stops signing, while it still does at `now` (ISO 8601); else null. */
export function previousSecretExpiry(row: WebhookRow, now: number): string | null {
  const until = row.previous_secret_expires_at;
  return row.previous_secret !== null && until !== null && until > now ? iso(Number(until)) : null;
}

/** The previous secret in plain form while its grace period lasts at `now`, else null. */
export function previousSecret(core: Pick<Core, 'config'>, row: WebhookRow, now: number): string | null {
  const until = row.previous_secret_expires_at;
  if (row.previous_secret === null || until === null || Number(until) <= now) return null;
  return openSecret(core.config, row.previous_secret);
}
