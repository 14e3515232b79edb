<?php
/**
 * The Prerequisites card: each check green or red, with what to do.
 *
 * From Waypost_Bridge_Settings_Page::render_prerequisites(): $checks (Waypost_Bridge_Prerequisites::all()),
 * $all_ok (bool).
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}
?>
<div class="waypost-card" id="waypost-prerequisites">
	<h2><?php esc_html_e( 'Prerequisites', 'waypost-bridge' ); ?></h2>
	<?php if ( ! $all_ok ) : ?>
		<p>
			<?php
			esc_html_e(
				'Fix the items in red; until then some data cannot be sent completely.',
				'waypost-bridge'
			);
			?>
		</p>
	<?php endif; ?>
	<table class="widefat striped waypost-checks">
		<thead>
			<tr>
				<th><?php esc_html_e( 'Requirement', 'waypost-bridge' ); ?></th>
				<th><?php esc_html_e( 'Status', 'waypost-bridge' ); ?></th>
				<th><?php esc_html_e( 'Found', 'waypost-bridge' ); ?></th>
				<th><?php esc_html_e( 'What to do', 'waypost-bridge' ); ?></th>
			</tr>
		</thead>
		<tbody>
		<?php foreach ( $checks as $check ) : ?>
			<tr data-check="<?php echo esc_attr( $check['id'] ); ?>"
				data-ok="<?php echo $check['ok'] ? 'yes' : 'no'; ?>">
				<td><?php echo esc_html( $check['label'] ); ?></td>
				<td>
					<?php if ( $check['ok'] ) : ?>
						<span class="waypost-ok">
							<span class="dashicons dashicons-yes-alt" aria-hidden="true"></span>
							<?php esc_html_e( 'OK', 'waypost-bridge' ); ?>
						</span>
					<?php else : ?>
						<span class="waypost-bad">
							<span class="dashicons dashicons-dismiss" aria-hidden="true"></span>
							<?php esc_html_e( 'Not met', 'waypost-bridge' ); ?>
						</span>
					<?php endif; ?>
				</td>
				<td><?php echo esc_html( $check['value'] ); ?></td>
				<td><?php echo $check['ok'] ? '' : esc_html( $check['help'] ); ?></td>
			</tr>
		<?php endforeach; ?>
		</tbody>
	</table>
</div>
