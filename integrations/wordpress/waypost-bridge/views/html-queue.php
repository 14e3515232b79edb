<?php
/**
 * The Retry queue card: what waits, the oldest, the next retry, the last error, Retry now.
 *
 * From Waypost_Bridge_Settings_Page::render_queue(): $count, $parked (int), $oldest, $error (array|null),
 * $next (int|null), $configured, $cron_disabled (bool), $erasures (the queued erasure requests: attempts, error…).
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}
?>
<div class="waypost-card" id="waypost-queue">
	<h2><?php esc_html_e( 'Retry queue', 'waypost-bridge' ); ?></h2>
	<p>
		<?php
		$waypost_sentences = array(
			__(
				'Changes that could not reach Waypost at once wait here and are retried automatically.',
				'waypost-bridge'
			),
			__( 'The first retry is after 1 minute, then the wait doubles, up to an hour.', 'waypost-bridge' ),
			__( 'What is sent is always the record\'s latest state.', 'waypost-bridge' ),
		);
		echo esc_html( implode( ' ', $waypost_sentences ) );
		?>
	</p>
	<?php if ( $cron_disabled ) : ?>
		<p class="waypost-note" id="waypost-queue-cron-disabled">
			<?php
			$waypost_sentences = array(
				__(
					'WP-Cron is disabled on this site (DISABLE_WP_CRON), and WP-Cron is what retries this queue.',
					'waypost-bridge'
				),
				__(
					'Queued changes are sent only when a system cron calls wp-cron.php, or with "Retry now".',
					'waypost-bridge'
				),
				__( 'A record that changes again is sent at once.', 'waypost-bridge' ),
				__(
					'If nothing calls wp-cron.php, add a system cron job for it (every few minutes).',
					'waypost-bridge'
				),
			);
			echo esc_html( implode( ' ', $waypost_sentences ) );
			?>
		</p>
	<?php endif; ?>
	<?php
	$waypost_refused = '';
	if ( $parked ) {
		$waypost_refused = ' ' . sprintf(
			/* translators: %s: number */
			_n(
				'(%s refused by Waypost: retried only with "Retry now" or when the record changes)',
				'(%s refused by Waypost: retried only with "Retry now" or when the records change)',
				$parked,
				'waypost-bridge'
			),
			number_format_i18n( $parked )
		);
	}
	$waypost_oldest = '';
	if ( $oldest ) {
		$waypost_oldest = sprintf(
			/* translators: 1: time span, 2: record */
			__( '%1$s ago (%2$s)', 'waypost-bridge' ),
			human_time_diff( time() - $oldest['age'], time() ),
			Waypost_Bridge_Settings_Page::record_label( $oldest['resource'], $oldest['record_id'] )
		);
	}
	$waypost_next = '';
	if ( null !== $next && $next <= time() ) {
		$waypost_next = $cron_disabled
			? __( 'due now (when wp-cron.php is next called, or "Retry now")', 'waypost-bridge' )
			: __( 'due now (when WP-Cron next runs)', 'waypost-bridge' );
	} elseif ( null !== $next ) {
		/* translators: %s: time span */
		$waypost_next = sprintf( __( 'in %s', 'waypost-bridge' ), human_time_diff( time(), $next ) );
	}
	$waypost_error = '';
	if ( $error ) {
		$waypost_error = sprintf(
			/* translators: 1: time span, 2: attempts */
			__( '%1$s ago, after %2$d attempt(s)', 'waypost-bridge' ),
			human_time_diff( (int) strtotime( $error['at'] . ' UTC' ), time() ),
			$error['attempts']
		);
	}
	?>
	<table class="widefat striped waypost-checks waypost-kv">
		<tbody>
			<tr>
				<th scope="row"><?php esc_html_e( 'Waiting', 'waypost-bridge' ); ?></th>
				<?php $waypost_count = number_format_i18n( $count ) . $waypost_refused; ?>
				<td id="waypost-queue-count"><?php echo esc_html( $waypost_count ); ?></td>
			</tr>
			<tr>
				<th scope="row"><?php esc_html_e( 'Oldest', 'waypost-bridge' ); ?></th>
				<td id="waypost-queue-oldest"><?php echo $oldest ? esc_html( $waypost_oldest ) : '&mdash;'; ?></td>
			</tr>
			<tr>
				<th scope="row"><?php esc_html_e( 'Next retry', 'waypost-bridge' ); ?></th>
				<td><?php echo null !== $next ? esc_html( $waypost_next ) : '&mdash;'; ?></td>
			</tr>
			<tr>
				<th scope="row"><?php esc_html_e( 'Last error', 'waypost-bridge' ); ?></th>
				<td id="waypost-queue-error">
				<?php if ( $error ) : ?>
					<code class="waypost-error"><?php echo esc_html( $error['error'] ); ?></code>
					<?php echo esc_html( $waypost_error ); ?>
				<?php else : ?>
					&mdash;
				<?php endif; ?>
				</td>
			</tr>
			<?php if ( $erasures ) : ?>
			<tr>
				<th scope="row"><?php esc_html_e( 'Erasure requests', 'waypost-bridge' ); ?></th>
				<td id="waypost-queue-erasures">
					<?php
					/* translators: %s: number */
					$waypost_waiting = _n(
						'%s from Erase Personal Data waits for Waypost; it is sent when Waypost answers.',
						'%s from Erase Personal Data wait for Waypost; they are sent when Waypost answers.',
						count( $erasures ),
						'waypost-bridge'
					);
					echo esc_html( sprintf( $waypost_waiting, number_format_i18n( count( $erasures ) ) ) );
					?>
					<code class="waypost-error"><?php echo esc_html( (string) end( $erasures )['error'] ); ?></code>
				</td>
			</tr>
			<?php endif; ?>
		</tbody>
	</table>
	<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>" class="waypost-actions">
		<?php Waypost_Bridge_Settings_Page::action_fields( 'retry_now' ); ?>
		<?php
		$waypost_attrs = ( ( $count || $erasures ) && $configured ) ? array() : array( 'disabled' => 'disabled' );
		submit_button( __( 'Retry now', 'waypost-bridge' ), 'secondary', 'waypost-retry', false, $waypost_attrs );
		?>
	</form>
</div>
