// wp-admin over plain HTTP, without a browser: an administrator's auth cookies made by WordPress itself, page
// fetches, and the settings page's admin-post.php actions with the nonces the page printed.
import type { WordPress } from './wordpress.js';

export interface AdminHttp {
  /** GETs a wp-admin path (e.g. "index.php") as the administrator; redirects are not followed. */
  get(path: string): Promise<{ status: number; html: string }>;
  /**
   * Submits one of Settings > Webhooks & API's forms (its action and nonce as printed on the page) and returns the
   * notice the page shows afterwards ('' when none).
   */
  action(action: string, fields?: Record<string, string>): Promise<string>;
  /** The settings page's HTML. */
  settings(): Promise<string>;
  /** POSTs to admin-ajax.php as wp-admin's scripts do; the decoded JSON answer. */
  ajax(fields: Record<string, string>): Promise<any>;
}

/** Logs in as the site's first administrator (cookies signed with the site's salts, a real session token). */
export async function adminHttp(site: WordPress): Promise<AdminHttp> {
  const cookies = JSON.parse(await site.php(`
    $admins = get_users( array( 'role' => 'administrator', 'number' => 1, 'orderby' => 'ID' ) );
    $id = $admins[0]->ID;
    $expire = time() + DAY_IN_SECONDS;
    echo wp_json_encode( array(
      AUTH_COOKIE => wp_generate_auth_cookie( $id, $expire, 'auth' ),
      LOGGED_IN_COOKIE => wp_generate_auth_cookie( $id, $expire, 'logged_in' ),
    ) );
  `)) as Record<string, string>;
  const cookie = Object.entries(cookies).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
  const get = async (path: string) => {
    const res = await fetch(`${site.url}/wp-admin/${path}`, { headers: { cookie }, redirect: 'manual' });
    return { status: res.status, html: await res.text() };
  };
  const settings = async () => (await get('options-general.php?page=waypost-bridge')).html;
  const noticeOf = (html: string) => {
    const m = /<div id="waypost-notice"[^>]*><p>([\s\S]*?)<\/p>/.exec(html);
    return m ? decodeEntities(m[1]) : '';
  };
  return {
    get,
    settings,
    async ajax(fields) {
      const res = await fetch(`${site.url}/wp-admin/admin-ajax.php`, {
        method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      });
      const text = await res.text();
      try {
        return JSON.parse(text);
      } catch {
        throw new Error(`admin-ajax answered ${res.status}: ${text.slice(0, 300)}`);
      }
    },
    async action(action, fields = {}) {
      const html = await settings();
      const nonce = new RegExp(`value="${action}">\\s*<input[^>]*name="_waypost_nonce" value="([0-9a-f]+)"`).exec(html);
      if (!nonce) throw new Error(`no form for ${action} on the settings page`);
      const res = await fetch(`${site.url}/wp-admin/admin-post.php`, {
        method: 'POST', redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ action, _waypost_nonce: nonce[1], ...fields }),
      });
      if (res.status !== 302) throw new Error(`${action} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      return noticeOf(await settings());
    },
  };
}

/** The few entities esc_html() writes. */
export function decodeEntities(text: string): string {
  return text.replace(/&#0?39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>')
    .replace(/&#8217;/g, '’').replace(/&amp;/g, '&');
}
