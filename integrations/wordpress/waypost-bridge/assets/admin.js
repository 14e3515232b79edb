/**
 * Settings > Webhooks & API: while "Send existing records" runs, this page drives it. Each admin-ajax request sends
 * batches for a few seconds (Waypost_Bridge_Backfill::drive()) and answers the progress; the next follows at once, so
 * the run finishes while the page is open even on a site where WP-Cron never runs (DISABLE_WP_CRON). When WP-Cron or
 * the CLI is sending, the answer only reports progress and the page asks again a little later.
 *
 * window.waypostBridge (wp_localize_script): ajaxUrl, stepAction, stepNonce.
 */
( function () {
	'use strict';
	var config = window.waypostBridge;
	var box = document.getElementById( 'waypost-backfill-status' );
	if ( ! config || ! box || '1' !== box.getAttribute( 'data-running' ) || ! window.fetch || ! window.FormData ) {
		return;
	}
	var bar = document.getElementById( 'waypost-backfill-progress' );
	var text = document.getElementById( 'waypost-backfill-text' );

	function step() {
		var form = new window.FormData();
		form.append( 'action', config.stepAction );
		form.append( '_ajax_nonce', config.stepNonce );
		window.fetch( config.ajaxUrl, { method: 'POST', credentials: 'same-origin', body: form } )
			.then( function ( response ) {
				return response.json();
			} )
			.then( function ( answer ) {
				if ( ! answer || ! answer.success ) {
					window.setTimeout( step, 5000 );
					return;
				}
				var status = answer.data;
				bar.max = Math.max( 1, status.total );
				bar.value = status.done;
				text.textContent = status.text;
				if ( status.running ) {
					window.setTimeout( step, status.next_in_ms );
				} else {
					window.location.reload(); // The finished card: its buttons and counts as the server renders them.
				}
			} )
			.catch( function () {
				window.setTimeout( step, 5000 );
			} );
	}
	step();
}() );
