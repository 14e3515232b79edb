// Bookings in bulk for the backfill's test and benchmark, made from the fixture's shapes with multi-row INSERTs (far
// faster than wp_insert_post): booking i copies the meta of the 6.8.0 fixture's booking (28, 31, 35, 38, 41)[i % 5]
// and its payment, with its own ids (firstId + 2i, its payment + 1), e-mail and payment link; the customers come after
// the bookings' ids. Run with WordPress.php(); it prints "ok".

export function generateBookingsPhp(o: { bookings: number; customers: number; firstId: number }): string {
  const { bookings, customers, firstId } = o;
  return `
global $wpdb;
$templates = array( 28 => 30, 31 => 33, 35 => 37, 38 => 40, 41 => 42 );
$skip      = array( 'payments', '_edit_lock', '_edit_last', '_initial_cart_info', '_initial_order_items' );
$meta_of   = function ( $id ) use ( $wpdb, $skip ) {
	$out = array();
	$sql = "SELECT meta_key, meta_value FROM {$wpdb->postmeta} WHERE post_id = %d ORDER BY meta_id";
	foreach ( $wpdb->get_results( $wpdb->prepare( $sql, $id ) ) as $row ) {
		if ( ! in_array( $row->meta_key, $skip, true ) ) {
			$out[ $row->meta_key ] = maybe_unserialize( $row->meta_value );
		}
	}
	return $out;
};
$shapes = array();
foreach ( $templates as $booking => $payment ) {
	$shapes[] = array(
		'booking' => $meta_of( $booking ), 'payment' => $meta_of( $payment ), 'post' => get_post( $booking ),
	);
}
$posts = array();
$metas = array();
$flush = function ( $force = false ) use ( &$posts, &$metas, $wpdb ) {
	if ( $posts && ( $force || count( $posts ) >= 1000 ) ) {
		$wpdb->query( "INSERT INTO {$wpdb->posts} (ID, post_author, post_date, post_date_gmt, post_content, post_title, "
			. 'post_excerpt, post_status, comment_status, ping_status, post_password, post_name, to_ping, pinged, '
			. 'post_modified, post_modified_gmt, post_content_filtered, post_parent, guid, menu_order, post_type, '
			. 'post_mime_type, comment_count) VALUES ' . implode( ',', $posts ) );
		$posts = array();
	}
	if ( $metas && ( $force || count( $metas ) >= 5000 ) ) {
		$wpdb->query( "INSERT INTO {$wpdb->postmeta} (post_id, meta_key, meta_value) VALUES " . implode( ',', $metas ) );
		$metas = array();
	}
};
$post_row = function ( $id, $type, $title, $name, $date ) use ( $wpdb ) {
	return $wpdb->prepare(
		"(%d, 1, %s, %s, '', %s, '', 'publish', 'closed', 'closed', '', %s, '', '', %s, %s, '', 0, '', 0, %s, '', 0)",
		$id, $date, $date, $title, $name, $date, $date, $type
	);
};
$meta_rows = function ( $id, array $meta ) use ( $wpdb, &$metas ) {
	foreach ( $meta as $key => $value ) {
		$metas[] = $wpdb->prepare( '(%d, %s, %s)', $id, $key, maybe_serialize( $value ) );
	}
};
$customer_bookings = array();
$start = strtotime( '2027-01-01 00:00:00 UTC' );
for ( $i = 0; $i < ${bookings}; $i++ ) {
	$shape   = $shapes[ $i % 5 ];
	$booking = ${firstId} + 2 * $i;
	$payment = $booking + 1;
	$c       = $i % ${customers};
	$email   = "guest{$c}@example.org";
	$date    = gmdate( 'Y-m-d H:i:s', $start + $i );
	$meta    = $shape['booking'];
	$meta['payments'] = array( $payment );
	foreach ( array( 'wptravelengine_billing_details', 'billing_info' ) as $key ) {
		$meta[ $key ]['email'] = $email;
		$meta[ $key ]['fname'] = "Guest{$c}";
	}
	$meta['wptravelengine_travelers_details'][0]['email'] = $email;
	$posts[] = $post_row( $booking, 'booking', "Guest{$c} Schmidt #{$booking}", "booking-{$booking}", $date );
	$meta_rows( $booking, $meta );
	$pmeta = $shape['payment'];
	$pmeta['booking_id'] = $booking;
	$posts[] = $post_row( $payment, 'wte-payments', "Payment for booking #{$booking}", "payment-{$payment}", $date );
	$meta_rows( $payment, $pmeta );
	$customer_bookings[ $c ][] = $booking;
	$flush();
}
foreach ( $customer_bookings as $c => $ids ) {
	$id    = ${firstId} + 2 * ${bookings} + $c;
	$email = "guest{$c}@example.org";
	$posts[] = $post_row( $id, 'customer', $email, "guest{$c}example-org", gmdate( 'Y-m-d H:i:s', $start ) );
	$meta_rows( $id, array(
		'wp_travel_engine_bookings'        => $ids,
		'wp_travel_engine_booking_setting' => array(
			'place_order' => array( 'booking' => array( 'fname' => "Guest{$c}", 'lname' => 'Schmidt', 'email' => $email,
				'address' => '1 Probe Street', 'city' => 'Berlin', 'country' => 'DE' ) ),
			'wptravelengine_traveller_details' => array( array( 'fname' => "Guest{$c}", 'lname' => 'Schmidt',
				'email' => $email, 'phone' => '+49 30 1111', 'country' => 'DE' ) ),
		),
	) );
	$flush();
}
$flush( true );
echo 'ok';
`;
}
