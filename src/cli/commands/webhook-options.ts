// The option parsers of `waypost webhooks create|update` (webhooks.ts): lists, event types, the throttle, ordering and
// payload, each refusing a bad value with a message saying what to give.
import { InvalidArgumentError } from 'commander';
import { MAX_PER_SECOND_LIMIT } from '../../webhooks/validate.js';
import { EVENT_TYPE_NAMES } from '../../webhooks/catalog.js';

export const list = (value: string) => value.split(',').map((s) => s.trim()).filter(Boolean);
/** `--events all` subscribes to every event type, like the console's "All events" box. */
export const eventList = (value: string) => (value.trim() === 'all' ? [...EVENT_TYPE_NAMES] : list(value));
/** `--max-per-second N`; `0` or `none` is no limit ('none': commander would store a parser's null as ''). */
export const maxPerSecond = (value: string): number | 'none' => {
  const v = value.trim().toLowerCase();
  if (v === 'none' || v === '0') return 'none';
  if (!/^[1-9]\d{0,3}$/.test(v) || Number(v) > MAX_PER_SECOND_LIMIT) {
    throw new InvalidArgumentError(`Give a whole number of deliveries per second, 1 to ${MAX_PER_SECOND_LIMIT}, `
      + 'or 0 / none for no limit.');
  }
  return Number(v);
};
export const perSecondInput = (v: number | 'none' | undefined) => (v === 'none' ? null : v);
export const MAX_PER_SECOND_HELP = 'at most N deliveries a second to it, across all workers (1-1000)';
export const ORDERING_HELP = '"record": a record\'s events one after another, in commit order; "none": no order';
/** `--ordering none|record`, `--payload full|minimal` (checked by updateWebhook too: its 400 names the field). */
const choice = (...values: string[]) => (value: string): string => {
  const v = value.trim().toLowerCase();
  if (!values.includes(v)) throw new InvalidArgumentError(`Give "${values.join('" or "')}".`);
  return v;
};
export const ordering = choice('none', 'record');
export const payload = choice('full', 'minimal');
export const PAYLOAD_HELP = '"minimal": only the record\'s ids and its API link, no personal fields (the receiver '
  + 'fetches what it needs); "full": the record as the API shows it';
