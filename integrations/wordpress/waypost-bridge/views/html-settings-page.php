<?php
/**
 * Settings > Webhooks & API: the page around its four cards.
 *
 * From Waypost_Bridge_Settings_Page::render(): $notice (array{type, message}|null), $configured (bool).
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}
?>
<div class="wrap waypost-bridge">
	<h1 class="wp-heading-inline"><?php esc_html_e( 'Webhooks & API', 'waypost-bridge' ); ?></h1>
	<?php
	$waypost_title = $configured
		? __( 'Opens the Waypost console, signed in as you', 'waypost-bridge' )
		: __( 'Connect to Waypost first (below)', 'waypost-bridge' );
	?>
	<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>" class="waypost-open-console">
		<?php Waypost_Bridge_Settings_Page::action_fields( 'open_console' ); ?>
		<button type="submit" class="page-title-action" <?php disabled( ! $configured ); ?>
			title="<?php echo esc_attr( $waypost_title ); ?>">
			<?php esc_html_e( 'Open Webhooks & API', 'waypost-bridge' ); ?>
		</button>
	</form>
	<hr class="wp-header-end">
	<p class="description">
		<?php
		$waypost_sentences = array(
			__(
				'Waypost sends webhooks for your bookings, customers, payments, enquiries and reviews.',
				'waypost-bridge'
			),
			__( 'It also serves them through a read-only REST API.', 'waypost-bridge' ),
			__( 'This plugin sends your WP Travel Engine data to Waypost.', 'waypost-bridge' ),
			__( 'Webhooks and API keys are managed in the Waypost console ("Open Webhooks & API").', 'waypost-bridge' ),
		);
		echo esc_html( implode( ' ', $waypost_sentences ) );
		?>
	</p>
	<?php if ( $notice ) : ?>
		<div id="waypost-notice" class="notice notice-<?php echo esc_attr( $notice['type'] ); ?> is-dismissible"
			role="status"><p><?php echo esc_html( $notice['message'] ); ?></p></div>
	<?php endif; ?>
	<?php
	Waypost_Bridge_Settings_Page::render_prerequisites();
	Waypost_Bridge_Settings_Page::render_connection();
	Waypost_Bridge_Settings_Page::render_queue( $configured );
	Waypost_Bridge_Settings_Page::render_backfill( $configured );
	?>
</div>
