<?php
/**
 * An approved comment on a trip as Waypost's review record.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Trip comment → Waypost review.
 */
class Waypost_Bridge_Review_Mapper extends Waypost_Bridge_Record_Values {

	/**
	 * An approved comment on a trip. The star rating is comment meta `stars` (written only by a paid add-on): 1-5,
	 * else null. The author's e-mail lets Waypost find the reviews of an e-mail for an erasure (it keeps a hash of it
	 * and never shows it).
	 *
	 * @param int $comment_id Comment.
	 * @return array|null
	 */
	public static function map( int $comment_id ): ?array {
		$comment = get_comment( $comment_id );
		$review  = $comment instanceof WP_Comment && Waypost_Bridge_Mapper::is_review_comment( $comment );
		if ( ! $review || '1' !== (string) $comment->comment_approved ) {
			return null;
		}
		$stars  = get_comment_meta( $comment->comment_ID, 'stars', true );
		$rating = is_numeric( $stars ) ? (int) round( (float) $stars ) : 0;
		return array(
			'trip_id'     => (int) $comment->comment_post_ID,
			'author_name'  => self::text( (string) $comment->comment_author, 300 ),
			'author_email' => self::email( $comment->comment_author_email ),
			'rating'       => $rating >= 1 && $rating <= 5 ? $rating : null,
			'content'      => self::text_or_null( $comment->comment_content, 20000 ),
			'created_at'   => self::gmt_time( $comment->comment_date_gmt, $comment->comment_date ),
		);
	}
}
