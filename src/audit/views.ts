// The audit log as GET /admin/api/audit and `waypost audit list --json` answer it. Imports nothing: the console
// (web/) compiles it too.

/** Who acted: a console or admin-API user, one a WordPress sign-in link signed in, the CLI, or the host token. */
export type ActorType = 'admin' | 'wordpress' | 'cli' | 'host';
export const ACTOR_TYPES: readonly ActorType[] = ['admin', 'wordpress', 'cli', 'host'];

/** Every action recorded, by what it acts on. */
export const AUDIT_ACTIONS = [
  'webhook.created', 'webhook.updated', 'webhook.enabled', 'webhook.disabled', 'webhook.deleted',
  'webhook.secret_revealed', 'webhook.secret_rotated', 'webhook.recovered',
  'key.created', 'key.updated', 'key.enabled', 'key.disabled', 'key.deleted',
  'settings.changed', 'person.erased', 'person.exported',
  'host_token.rotated', 'admin_token.rotated', 'admin.created', 'admin.password_changed', 'admin.wordpress_linked',
  'admin.wordpress_unlinked', 'delivery.redelivered', 'webhook.tested', 'event.sent',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Details are small and flat: names of fields changed, a grace period, a count. Never a secret or a key. */
export type AuditDetails = Record<string, string | number | boolean | null | string[]>;

export interface AuditEntryView {
  id: string;
  at: string;
  actor_type: ActorType;
  /** "adm_… ops@example.com" (a console session), "admin token", the CLI's OS user, "host token". */
  actor: string;
  action: AuditAction;
  target_type: string | null;
  target_id: string | null;
  details: AuditDetails | null;
  /** Where the request came from; null for the CLI. */
  ip: string | null;
}

export interface AuditPage {
  items: AuditEntryView[];
  /** Pass as `after` for the next (older) page; null on the last page. */
  next: string | null;
}
