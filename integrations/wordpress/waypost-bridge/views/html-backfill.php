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
	<p>
		<?php
		$waypost_sentences = array(
			__(
				'Send the trips, customers, bookings, payments, enquiries and reviews that already exist to Waypost.',
				'waypost-bridge'
			),
			__(
				'They go in batches while this page is open (WP-Cron continues in the background if you leave).',
				'waypost-bridge'
			),
			__( 'It can be cancelled and resumed.', 'waypost-bridge' ),
			__(
				'No webhooks fire twice: a record Waypost already has as it is counts as unchanged.',
				'waypost-bridge'
			),
			__( 'For a large site, "wp waypost backfill" (WP-CLI) is faster.', 'waypost-bridge' ),
		);
		echo esc_html( implode( ' ', $waypost_sentences ) );
		?>
	</p>
	<?php if ( $cron_disabled ) : ?>
		<p class="waypost-note" id="waypost-cron-disabled">
			<?php
			$waypost_sentences = array(
				__(
					'WP-Cron is disabled on this site (DISABLE_WP_CRON): keep this page open until sending is done.',
					'waypost-bridge'
				),
				__( 'If you leave, it goes on only when a system cron calls wp-cron.php.', 'waypost-bridge' ),
				__( 'Otherwise it resumes when you come back.', 'waypost-bridge' ),
			);
			echo esc_html( implode( ' ', $waypost_sentences ) );
			?>
		</p>
	<?php endif; ?>
	<p id="waypost-backfill-status" data-running="<?php echo $status['running'] ? '1' : '0'; ?>">
		<progress id="waypost-backfill-progress" max="<?php echo esc_attr( max( 1, $status['total'] ) ); ?>"
			value="<?php echo esc_attr( $status['done'] ); ?>"></progress>
		<?php $waypost_text = Waypost_Bridge_Settings_Page::backfill_text( $status ); ?>
		<span id="waypost-backfill-text"><?php echo esc_html( $waypost_text ); ?></span>
	</p>
	<?php if ( $status['running'] ) : ?>
		<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>">
			<?php Waypost_Bridge_Settings_Page::action_fields( 'backfill_cancel' ); ?>
			<?php submit_button( __( 'Cancel', 'waypost-bridge' ), 'secondary', 'waypost-backfill-cancel', false ); ?>
		</form>
	<?php else : ?>
		<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>">
			<?php Waypost_Bridge_Settings_Page::action_fields( 'backfill_start' ); ?>
			<?php
			$waypost_label = __( 'Send existing records', 'waypost-bridge' );
			$waypost_attrs = $configured ? array() : array( 'disabled' => 'disabled' );
			submit_button( $waypost_label, 'secondary', 'waypost-backfill-start', false, $waypost_attrs );
			?>
		</form>
	<?php endif; ?>
</div>
