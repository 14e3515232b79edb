// What test/bridge/mapping.test.ts compares with: the truth file's values in Waypost's spellings, and a backfill run.
import type { WordPress } from './wordpress.js';

export const PAID = ['completed', 'captured', 'partially-paid', 'check-received', 'voucher-received'];
export const money = (v: unknown) => Number(v).toFixed(2);
export const iso = (mysql: string) => new Date(`${mysql.replace(' ', 'T')}Z`).toISOString();
export const orNull = (v: unknown) => (v === '' || v === undefined || v === null ? null : v);
const STATUS_SPELLINGS: Record<string, string> = { cancelled: 'canceled', cancel: 'canceled', complete: 'completed' };
export const canonical = (s: string) => STATUS_SPELLINGS[s] ?? s;

/** Runs backfill batches in PHP until done; returns the final cursor and the number of batches. */
export async function backfill(site: WordPress, size: number, from: 'start' | 'resume' = 'start'): Promise<{
  batches: number; cursor: any }> {
  const out = await site.php(`
    $cursor  = ${from === 'start' ? 'null' : 'Waypost_Bridge_Backfill_State::saved_cursor()'};
    $batches = 0;
    do {
      $r = Waypost_Bridge_Backfill_Batch::run( $cursor, ${size} );
      if ( null !== $r['error'] ) { fwrite( STDERR, $r['error'] ); exit( 1 ); }
      $cursor = $r['cursor'];
      ++$batches;
    } while ( ! $r['done'] );
    echo wp_json_encode( array( 'batches' => $batches, 'cursor' => $cursor ) );
  `);
  return JSON.parse(out);
}
