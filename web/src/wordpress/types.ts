// GET /admin/api/wordpress/status and POST /admin/api/wordpress/host-token (src/admin/wordpress-routes.ts).

export interface WordPressStatus {
  connected: boolean;
  last_contact_at: string | null;
  site_url: string | null;
  plugin_version: string | null;
  wordpress_version: string | null;
  wp_travel_engine_version: string | null;
  queue_length: number | null;
  plugin: { file: string; bytes: number; version: string } | null;
  waypost_url: string;
  host_token_source: 'environment' | 'stored' | 'none';
}

export interface NewHostToken {
  token: string;
}
