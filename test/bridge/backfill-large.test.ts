// Backfill of records too large for one batch request: 200 reviews in Cyrillic at the bridge's 20,000-character cap
// are ~24 MB once JSON-escaped, over the 12 MiB Waypost takes in one POST /host/v1/batch (413). The bridge cuts its
// batches at ~8 MB, and splits a batch that still gets a 413 in halves, down to one operation. Waypost is behind a
// front that answers 413 to a batch body over a limit the test sets (Waypost's own limit is a constant).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { testWaypost } from '../helpers/waypost.js';
import { BATCH_BODY_LIMIT } from '../../src/host/routes.js';
import type { Waypost } from '../../src/sdk.js';
import { BRIDGE_DIR, hasWordPress, startWordPress, type WordPress } from './wordpress.js';

const available = await hasWordPress();
const REVIEWS = 200;

/** $trip: a published trip of the fixture. */
const TRIP = `global $wpdb;
$trip = (int) $wpdb->get_var(
	"SELECT ID FROM {$wpdb->posts} WHERE post_type = 'trip' AND post_status = 'publish' ORDER BY ID LIMIT 1" );`;
/** Runs the backfill from the start to the end in batches of 200; prints its last cursor, or the error. */
const BACKFILL = `
$cursor = null;
do {
	$r = Waypost_Bridge_Backfill_Batch::run( $cursor, 200 );
	if ( null !== $r['error'] ) { echo wp_json_encode( array( 'error' => $r['error'] ) ); exit; }
	$cursor = $r['cursor'];
} while ( ! $r['done'] );
echo wp_json_encode( $cursor );
`;

describe.skipIf(!available)('backfill of batches larger than Waypost takes', () => {
  let waypost: Waypost;
  let app: FastifyInstance;
  let front: Server;
  let site: WordPress;
  let limit = BATCH_BODY_LIMIT;
  /** Each batch request: its body's bytes, whether the front refused it, the review ids it carried. */
  let seen: { bytes: number; refused: boolean; reviews: number[] }[] = [];
  let reviewIds: number[] = [];

  beforeAll(async () => {
    waypost = await testWaypost();
    app = await waypost.app();
    front = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const body = Buffer.concat(chunks);
        if (req.method === 'POST' && req.url === '/host/v1/batch') {
          const refused = body.length > limit;
          const ops = refused ? [] : (JSON.parse(body.toString('utf8')).operations as any[]);
          seen.push({ bytes: body.length, refused,
            reviews: ops.filter((o) => o.resource === 'reviews').map((o) => Number(o.id)) });
          if (refused) {
            res.writeHead(413, { 'content-type': 'application/problem+json' });
            res.end(JSON.stringify({ type: 'about:blank', title: 'Payload Too Large', status: 413,
              code: 'payload_too_large', detail: 'Request body is too large' }));
            return;
          }
        }
        const answer = await app.inject({ method: req.method as 'PUT', url: req.url!, headers: req.headers,
          payload: body });
        res.writeHead(answer.statusCode,
          { 'content-type': String(answer.headers['content-type'] ?? 'application/json') });
        res.end(answer.body);
      });
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
    site = await startWordPress({ fixture: 'wpte-6.8.0', plugins: [BRIDGE_DIR],
      constants: { WAYPOST_URL: url, WAYPOST_HOST_TOKEN: 'test-host-token' } });
    // Approved reviews of a trip, written with SQL so that no hook forwards them now.
    reviewIds = JSON.parse(await site.php(`
      ${TRIP}
      $ids  = array();
      for ( $i = 0; $i < ${REVIEWS}; $i++ ) {
        $wpdb->insert( $wpdb->comments, array( 'comment_post_ID' => $trip, 'comment_author' => 'Иван ' . $i,
          'comment_date' => '2026-01-01 10:00:00', 'comment_date_gmt' => '2026-01-01 10:00:00',
          'comment_content' => str_repeat( 'Отличный тур! ', 1428 ) . 'Спасибо', 'comment_approved' => '1',
          'comment_type' => 'review' ) );
        $ids[] = (int) $wpdb->insert_id;
      }
      echo wp_json_encode( $ids );
    `));
  }, 120_000);

  afterAll(async () => {
    await site?.close();
    await new Promise((r) => front?.close(r));
    await waypost?.close();
  });

  const reviewsInWaypost = async () => (await waypost.core.db.selectFrom('reviews').select('id')
    .where('id', 'in', reviewIds).execute()).length;

  it('cuts batches at ~8 MB, under Waypost\'s 12 MiB, so every review arrives without a 413', async () => {
    limit = BATCH_BODY_LIMIT;
    seen = [];
    const cursor = JSON.parse(await site.php(BACKFILL));
    expect(cursor).toMatchObject({ resource: null, failed: 0 });
    expect(await reviewsInWaypost()).toBe(REVIEWS);
    expect(seen.filter((s) => s.refused)).toEqual([]);
    expect(Math.max(...seen.map((s) => s.bytes))).toBeLessThanOrEqual(8_100_000);
    expect(seen.filter((s) => s.reviews.length > 0).length).toBeGreaterThanOrEqual(3); // ~24 MB of reviews
  }, 180_000);

  it('splits a batch that gets a 413 in halves until each part is taken; every review is sent once', async () => {
    limit = 1_000_000; // ~8 reviews
    seen = [];
    const cursor = JSON.parse(await site.php(BACKFILL));
    expect(cursor).toMatchObject({ resource: null, failed: 0 });
    expect(seen.some((s) => s.refused)).toBe(true);
    const taken = seen.filter((s) => !s.refused).flatMap((s) => s.reviews);
    expect(taken.sort((a, b) => a - b)).toEqual([...reviewIds].sort((a, b) => a - b));
    expect(await reviewsInWaypost()).toBe(REVIEWS);
  }, 180_000);

  it('reports one operation still too large as its own failure, in its place, and sends the others', async () => {
    limit = 50_000; // less than one review (~120 KB escaped), more than a trip
    const out = JSON.parse(await site.php(`
      ${TRIP}
      $op   = function ( $resource, $id ) {
        return array( 'op' => 'put', 'resource' => $resource, 'id' => $id,
          'data' => Waypost_Bridge_Mapper::record( $resource, $id ) );
      };
      $r = Waypost_Bridge_Batch_Client::send( array( $op( 'trips', $trip ), $op( 'reviews', ${reviewIds[0]} ),
        $op( 'trips', $trip ) ) );
      echo wp_json_encode( $r );
    `));
    expect(out.error).toBeNull();
    expect(out.body.results.map((r: any) => [r.index, r.status])).toEqual([[0, 200], [1, 413], [2, 200]]);
    expect(out.body.results[1].error).toMatchObject({ code: 'payload_too_large' });
  }, 60_000);
});
