// Helpers of shipping.test.ts: the settings page rendered in its states with every translation marked, the msgids of
// a .pot, and what a marked page shows outside its marks.

/**
 * PHP (WordPress loaded): renders Settings > Webhooks & API as an administrator in four states (not connected;
 * connected over plain http:// with a notice, queued and parked changes and a last error; a backfill running on a
 * site with DISABLE_WP_CRON; then stopped, then finished) with a gettext filter that records every string of the
 * `waypost-bridge` domain and wraps its translation in ⟦…⟧. Prints {pages, seen, data}: data are the values shown
 * as they are (versions, an error text).
 */
export const RENDER_STATES = `
require_once ABSPATH . 'wp-admin/includes/admin.php';
$admins = get_users( array( 'role' => 'administrator', 'number' => 1 ) );
wp_set_current_user( $admins[0]->ID );
$seen = array();
$mark = static function ( $translation, array $texts, $domain ) use ( &$seen ) {
	if ( 'waypost-bridge' !== $domain ) {
		return $translation;
	}
	foreach ( $texts as $text ) {
		$seen[ $text ] = true;
	}
	return "\\u{27e6}" . $translation . "\\u{27e7}";
};
add_filter( 'gettext', static function ( $t, $text, $domain ) use ( $mark ) {
	return $mark( $t, array( $text ), $domain );
}, 10, 3 );
add_filter( 'ngettext', static function ( $t, $single, $plural, $n, $domain ) use ( $mark ) {
	return $mark( $t, array( $single, $plural ), $domain );
}, 10, 5 );
$render = static function () {
	ob_start();
	Waypost_Bridge_Settings_Page::render();
	return ob_get_clean();
};
$pages   = array();
$pages[] = $render();

Waypost_Bridge_Connection::set_url( 'http://waypost.example.com' );
Waypost_Bridge_Connection::set_token( 'a-host-token-abcd' );
Waypost_Bridge_Queue::push( 'trips', 19, 'put', 'HTTP 503', 'failed' );
Waypost_Bridge_Queue::push( 'customers', 29, 'put', 'HTTP 422', 'refused' );
set_transient( 'waypost_bridge_notice_' . get_current_user_id(),
	array( 'type' => 'success', 'message' => __( 'Host token removed.', 'waypost-bridge' ) ), 300 );
$pages[] = $render();

define( 'DISABLE_WP_CRON', true );
Waypost_Bridge_Backfill::start();
$pages[] = $render();

Waypost_Bridge_Backfill::cancel();
$stopped = $render();
$state = get_option( Waypost_Bridge_Backfill_State::OPTION );
$state['cursor']['resource'] = null;
update_option( Waypost_Bridge_Backfill_State::OPTION, $state, false );
$pages[] = $stopped . $render();

global $wp_version;
echo wp_json_encode( array( 'pages' => $pages, 'seen' => array_keys( $seen ),
	'data' => array( $wp_version, PHP_VERSION, 'HTTP 503', 'HTTP 422' ) ) );
`;

/** The msgids of a .pot (msgid_plural too), unescaped. */
export function potMsgids(pot: string): Set<string> {
  const ids = new Set<string>();
  const unquote = (s: string) => JSON.parse(s) as string; // PO strings escape as JSON does (\\, \", \n, \t).
  for (const block of pot.split(/\n\n+/)) {
    for (const m of block.matchAll(/^(msgid|msgid_plural) ((?:"(?:[^"\\]|\\.)*"\s*)+)/gm)) {
      const parts = m[2].match(/"(?:[^"\\]|\\.)*"/g) ?? [];
      const id = parts.map(unquote).join('');
      if (id) ids.add(id);
    }
  }
  return ids;
}

/**
 * What a page rendered with marked translations shows outside the marks, word by word: its text and the attributes a
 * person reads (title, placeholder, a submit button's value), less the data values given. Empty when every string
 * went through translation.
 */
export function untranslated(html: string, data: string[]): string[] {
  const readable = [
    ...[...html.matchAll(/\s(?:title|placeholder|aria-label)="([^"]*)"/g)].map((m) => m[1]),
    ...[...html.matchAll(/<input[^>]*type="submit"[^>]*>/g)].map((m) => /value="([^"]*)"/.exec(m[0])?.[1] ?? ''),
    html.replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ').replace(/<[^>]+>/g, ' '),
  ].join(' \n ');
  let text = readable;
  for (let before = ''; before !== text;) {
    before = text;
    text = text.replace(/⟦[^⟦⟧]*⟧/g, ' '); // innermost first: a sprintf of a translation can hold another
  }
  for (const value of data) text = text.split(value).join(' ');
  text = text.replace(/&(?:[a-z]+|#\d+);/g, ' '); // entities (&mdash; for an empty value)
  // Left: numbers, punctuation, a URL placeholder and the masked token's dots are data; a word is a miss.
  return text.split(/\s+/).filter((w) => /[A-Za-z]{2,}/.test(w) && !/^https?:\/\//.test(w) && !/^•+\w{0,4}$/.test(w));
}
