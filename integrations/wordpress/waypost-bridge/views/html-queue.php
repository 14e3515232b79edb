<?php
/**
 * The Retry queue card: what waits, the oldest, the next retry, the last error, Retry now.
 *
 * From Waypost_Bridge_Settings_Page::render_queue(): $count, $parked (int), $oldest, $error (array|null),
 * $next (int|null), $configured, $cron_disabled (bool).
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}
?>
<div class="waypost-card" id="waypost-queue">
	<h2><?php esc_html_e( 'Retry queue', 'waypost-bridge' ); ?></h2>
	<p><?php esc_html_e( 'Changes that could not reach Waypost at once wait here and are retried automatically (after 1 minute, then doubling up to every hour). What is sent is always the record\'s latest state.', 'waypost-bridge' ); ?></p>
	<?php if ( $cron_disabled ) : ?>
		<p class="waypost-note" id="waypost-queue-cron-disabled"><?php esc_html_e( 'WP-Cron is disabled on this site (DISABLE_WP_CRON), and WP-Cron is what retries this queue: queued changes are sent only when a system cron calls wp-cron.php, when you press "Retry now", or when the record changes again. If nothing calls wp-cron.php, add a system cron job for it (every few minutes).', 'waypost-bridge' ); ?></p>
	<?php endif; ?>
	<table class="widefat striped waypost-checks waypost-kv">
		<tbody>
			<tr><th scope="row"><?php esc_html_e( 'Waiting', 'waypost-bridge' ); ?></th><td id="waypost-queue-count"><?php echo esc_html( number_format_i18n( $count ) ); ?>
			<?php
			if ( $parked ) {
				/* translators: %s: number */
				echo ' ' . esc_html( sprintf( _n( '(%s refused by Waypost: retried only with "Retry now" or when the record changes)', '(%s refused by Waypost: retried only with "Retry now" or when the records change)', $parked, 'waypost-bridge' ), number_format_i18n( $parked ) ) );
			}
			?>
			</td></tr>
			<tr><th scope="row"><?php esc_html_e( 'Oldest', 'waypost-bridge' ); ?></th><td id="waypost-queue-oldest">
			<?php
			echo $oldest
				/* translators: 1: time span, 2: record */
				? esc_html( sprintf( __( '%1$s ago (%2$s)', 'waypost-bridge' ), human_time_diff( time() - $oldest['age'], time() ), Waypost_Bridge_Settings_Page::record_label( $oldest['resource'], $oldest['record_id'] ) ) )
				: '&mdash;';
			?>
			</td></tr>
			<tr><th scope="row"><?php esc_html_e( 'Next retry', 'waypost-bridge' ); ?></th><td>
			<?php
			echo null !== $next
				? esc_html( $next <= time() ? ( $cron_disabled ? __( 'due now (when wp-cron.php is next called, or "Retry now")', 'waypost-bridge' ) : __( 'due now (when WP-Cron next runs)', 'waypost-bridge' ) ) : sprintf( /* translators: %s: time span */ __( 'in %s', 'waypost-bridge' ), human_time_diff( time(), $next ) ) )
				: '&mdash;';
			?>
			</td></tr>
			<tr><th scope="row"><?php esc_html_e( 'Last error', 'waypost-bridge' ); ?></th><td id="waypost-queue-error">
			<?php if ( $error ) : ?>
				<code class="waypost-error"><?php echo esc_html( $error['error'] ); ?></code>
				<?php
				/* translators: 1: time span, 2: attempts */
				echo esc_html( sprintf( __( '%1$s ago, after %2$d attempt(s)', 'waypost-bridge' ), human_time_diff( (int) strtotime( $error['at'] . ' UTC' ), time() ), $error['attempts'] ) );
				?>
			<?php else : ?>
				&mdash;
			<?php endif; ?>
			</td></tr>
		</tbody>
	</table>
	<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>" class="waypost-actions">
		<?php Waypost_Bridge_Settings_Page::action_fields( 'retry_now' ); ?>
		<?php submit_button( __( 'Retry now', 'waypost-bridge' ), 'secondary', 'waypost-retry', false, ( $count && $configured ) ? array() : array( 'disabled' => 'disabled' ) ); ?>
	</form>
</div>
