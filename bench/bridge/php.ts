// The benchmark's WordPress PHP, kept in .php files beside this one: `{{name}}` placeholders are filled here.
import { readFileSync } from 'node:fs';
import { BATCH } from './options.js';
import { checkoutReplay } from '../../test/bridge/wordpress.js';

const read = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');
const fill = (php: string, values: Record<string, string | number>) =>
  php.replace(/\{\{([a-z_]+)\}\}/g, (_, key: string) => String(values[key]));
/** A file's code without its opening tag (WordPress.php() adds its own). */
const body = (php: string) => php.replace(/^<\?php\n/, '');

/** The mu-plugin replaying a checkout (the tests' replay), with the bridge's URL per request among these targets. */
export const muPlugin = (targets: Record<'up' | 'down' | 'hang', string>) =>
  fill(read('checkout-mu-plugin.php'), targets) + checkoutReplay();

/** Up to maxBatches backfill batches from a cursor (null: start over), into Waypost or the in-PHP stub. */
export function runBatches(cursor: unknown, maxBatches: number, stub: boolean): string {
  const run = fill(read('run-batches.php'), {
    cursor: Buffer.from(JSON.stringify(cursor ?? null)).toString('base64'),
    max_batches: maxBatches,
    batch: BATCH,
  });
  return `${stub ? body(read('stub-waypost.php')) : ''}${body(run)}`;
}
