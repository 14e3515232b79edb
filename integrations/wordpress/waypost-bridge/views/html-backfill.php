<?php
/**
 * The Existing records card: Send existing records with its progress. While a run is on, assets/admin.js drives it
 * from the page (admin-ajax), so it finishes without WP-Cron.
 *
 * From Waypost_Bridge_Settings_Page::render_backfill(): $status (backfill_status()), $configured, $cron_disabled.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}
?>
<div class="waypost-card" id="waypost-backfill">
	<h2><?php esc_html_e( 'Existing records', 'waypost-bridge' ); ?></h2>
	<p><?php esc_html_e( 'Send the trips, customers, bookings, payments, enquiries and reviews that already exist to Waypost, in batches, while this page is open (WP-Cron continues in the background if you leave). It can be cancelled and resumed. No webhooks fire twice: a record Waypost already has as it is counts as unchanged. For a large site, "wp waypost backfill" (WP-CLI) is faster.', 'waypost-bridge' ); ?></p>
	<?php if ( $cron_disabled ) : ?>
		<p class="waypost-note" id="waypost-cron-disabled"><?php esc_html_e( 'WP-Cron is disabled on this site (DISABLE_WP_CRON): keep this page open until sending is done. If you leave, it goes on only when a system cron calls wp-cron.php; otherwise it resumes when you come back.', 'waypost-bridge' ); ?></p>
	<?php endif; ?>
	<p id="waypost-backfill-status" data-running="<?php echo $status['running'] ? '1' : '0'; ?>">
		<progress id="waypost-backfill-progress" max="<?php echo esc_attr( max( 1, $status['total'] ) ); ?>"
			value="<?php echo esc_attr( $status['done'] ); ?>"></progress>
		<span id="waypost-backfill-text"><?php echo esc_html( Waypost_Bridge_Settings_Page::backfill_text( $status ) ); ?></span>
	</p>
	<?php if ( $status['running'] ) : ?>
		<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>">
			<?php Waypost_Bridge_Settings_Page::action_fields( 'backfill_cancel' ); ?>
			<?php submit_button( __( 'Cancel', 'waypost-bridge' ), 'secondary', 'waypost-backfill-cancel', false ); ?>
		</form>
	<?php else : ?>
		<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>">
			<?php Waypost_Bridge_Settings_Page::action_fields( 'backfill_start' ); ?>
			<?php submit_button( __( 'Send existing records', 'waypost-bridge' ), 'secondary', 'waypost-backfill-start', false, $configured ? array() : array( 'disabled' => 'disabled' ) ); ?>
		</form>
	<?php endif; ?>
</div>
