// Table types owned by the admin capability: console accounts, their server-side sessions, failed sign-ins.

export interface AdminRow {
  id: string; // adm_…
  email: string; // lower-cased, unique
  password_hash: string; // "scrypt$N$r$p$<salt b64>$<hash b64>", or NO_PASSWORD (src/admin/passwords.ts)
  created_at: string;
  last_login_at: string | null;
  created_via: string | null; // "wordpress": made by a sign-in link on first use; null: CLI or setup link
  name: string | null; // the display name WordPress sent, if any
  // The one WordPress user whose sign-in links open this account (src/admin/wordpress-link.ts): set when WordPress
  // makes the account, or by its owner in the console; both null: no link opens it.
  wp_site_url: string | null;
  wp_user_id: number | null;
  wp_link_request: string | null; // JSON WordPressLinkRequest: the last link refused, for the owner to allow
}

export interface AdminSignInLinkRow {
  id: string; // SHA-256 (hex) of the link's token: a leaked database does not yield usable links
  email: string; // lower-cased
  name: string | null;
  created_at: string;
  expires_at: number; // ms
  wp_site_url: string; // the WordPress user it was asked for: it opens only an account bound to that user
  wp_user_id: number;
}

export interface AdminSessionRow {
  id: string; // SHA-256 (hex) of the cookie value: a leaked database does not yield usable sessions
  admin_id: string;
  csrf_token: string; // synchronizer token, sent back in X-CSRF-Token on every state change
  created_at: string;
  expires_at: number; // ms; absolute end of the session
  last_seen_at: number; // ms; sessions idle for too long end early
  opened_via: string | null; // 'wordpress': a WordPress sign-in link opened it (the audit log says so); null: else
}

export interface AdminLoginFailureRow {
  id: string; // lfl_…
  scope: string; // "ip:<address>" or "email:<address>"
  at: number; // ms
}

export interface AdminTables {
  admins: AdminRow;
  admin_sessions: AdminSessionRow;
  admin_login_failures: AdminLoginFailureRow;
  admin_sign_in_links: AdminSignInLinkRow;
}
