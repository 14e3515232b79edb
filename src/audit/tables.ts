// Table types owned by the audit capability: the append-only log of admin actions (migration 0031).

export interface AuditLogRow {
  id: string; // aud_…: begins with its time, so id order is time order
  at: string; // ISO 8601
  actor_type: string; // ActorType (src/audit/views.ts)
  actor: string; // "adm_… ops@example.com", "admin token", the OS user for the CLI, "host token"
  action: string; // AuditAction
  target_type: string | null; // webhook | key | settings | person
  target_id: string | null;
  details: string | null; // JSON object; never a secret
  ip: string | null; // null from the CLI
}

export interface AuditTables {
  audit_log: AuditLogRow;
}
