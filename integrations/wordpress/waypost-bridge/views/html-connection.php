<?php
/**
 * The Connection card: the Waypost URL and host token (read-only when wp-config.php defines them), Test connection.
 *
 * From Waypost_Bridge_Settings_Page::render_connection(): $url_constant, $token_constant, $read_only (bool), $url,
 * $hint (the token's last characters), $problem (string|null).
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}
?>
<div class="waypost-card" id="waypost-connection">
	<h2><?php esc_html_e( 'Connection', 'waypost-bridge' ); ?></h2>
	<p>
		<?php
		esc_html_e( 'The address of your Waypost server and its host token.', 'waypost-bridge' );
		echo ' ';
		/* translators: %s: a command */
		$waypost_rotate = __(
			'(It is printed once when Waypost first started; "%s" on the server makes a new one.)',
			'waypost-bridge'
		);
		echo esc_html( sprintf( $waypost_rotate, 'npx waypost host-token --rotate' ) );
		?>
	</p>
	<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>">
		<?php Waypost_Bridge_Settings_Page::action_fields( 'save_connection' ); ?>
		<table class="form-table" role="presentation">
			<tr>
				<th scope="row">
					<label for="waypost-url"><?php esc_html_e( 'Waypost URL', 'waypost-bridge' ); ?></label>
				</th>
				<td>
					<input type="url" id="waypost-url" name="waypost_url" class="regular-text code"
						value="<?php echo esc_attr( $url ); ?>" placeholder="https://waypost.example.com"
						<?php echo $url_constant ? 'readonly' : ''; ?>>
					<?php if ( $url_constant ) : ?>
						<p class="description">
							<?php esc_html_e( 'Set in wp-config.php (WAYPOST_URL).', 'waypost-bridge' ); ?>
						</p>
					<?php elseif ( ! $token_constant ) : ?>
						<p class="description">
							<?php
							esc_html_e(
								'Saving an address on another server removes the saved host token.',
								'waypost-bridge'
							);
							echo ' ';
							esc_html_e( 'Enter it again with the new address.', 'waypost-bridge' );
							?>
						</p>
					<?php endif; ?>
					<?php if ( '' !== $url && Waypost_Bridge_Settings_Page::is_insecure_url( $url ) ) : ?>
						<p class="waypost-bad" id="waypost-http-warning">
							<?php
							esc_html_e( 'Warning: this URL uses plain http:// to another machine.', 'waypost-bridge' );
							echo ' ';
							esc_html_e(
								'The host token and your customers\' data travel unencrypted.',
								'waypost-bridge'
							);
							echo ' ';
							esc_html_e( 'Use https://.', 'waypost-bridge' );
							?>
						</p>
					<?php endif; ?>
				</td>
			</tr>
			<tr>
				<th scope="row">
					<label for="waypost-token"><?php esc_html_e( 'Host token', 'waypost-bridge' ); ?></label>
				</th>
				<td>
					<?php if ( $token_constant ) : ?>
						<input type="text" id="waypost-token" class="regular-text code"
							value="<?php echo esc_attr( $hint ); ?>" readonly>
						<p class="description">
							<?php esc_html_e( 'Set in wp-config.php (WAYPOST_HOST_TOKEN).', 'waypost-bridge' ); ?>
						</p>
					<?php else : ?>
						<?php $waypost_paste = '' !== $hint ? $hint : __( 'paste the host token', 'waypost-bridge' ); ?>
						<input type="password" id="waypost-token" name="waypost_token" class="regular-text code"
							value="" autocomplete="new-password"
							placeholder="<?php echo esc_attr( $waypost_paste ); ?>">
						<p class="description">
							<?php
							/* translators: %s: the token's last characters */
							$waypost_saved = __(
								'A token ending in %s is saved (encrypted). Leave empty to keep it.',
								'waypost-bridge'
							);
							echo '' !== $hint
								? esc_html( sprintf( $waypost_saved, substr( $hint, -4 ) ) )
								: esc_html__( 'Stored encrypted; it is never shown again.', 'waypost-bridge' );
							?>
						</p>
						<?php if ( '' !== $hint ) : ?>
							<label>
								<input type="checkbox" name="waypost_token_clear" value="1">
								<?php esc_html_e( 'Remove the saved token', 'waypost-bridge' ); ?>
							</label>
						<?php endif; ?>
					<?php endif; ?>
					<?php if ( $problem ) : ?>
						<p class="waypost-bad"><?php echo esc_html( $problem ); ?></p>
					<?php endif; ?>
				</td>
			</tr>
		</table>
		<?php if ( ! $read_only ) : ?>
			<?php submit_button( __( 'Save connection', 'waypost-bridge' ), 'primary', 'waypost-save', false ); ?>
		<?php endif; ?>
	</form>
	<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>" class="waypost-actions">
		<?php Waypost_Bridge_Settings_Page::action_fields( 'test_connection' ); ?>
		<?php
		$waypost_disabled = Waypost_Bridge_Connection::is_configured() ? array() : array( 'disabled' => 'disabled' );
		$waypost_label    = __( 'Test connection', 'waypost-bridge' );
		submit_button( $waypost_label, 'secondary', 'waypost-test', false, $waypost_disabled );
		?>
	</form>
</div>
