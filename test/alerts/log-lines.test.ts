// Log lines are JSON with each key once: a parser or log shipper must not have to pick between two `level`s.
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { sendFailureAlert } from '../../src/alerts/index.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';

function capture(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

/** The top-level keys of a JSON object line, in order and with repeats (JSON.parse would keep only the last). */
function topLevelKeys(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      let j = i + 1;
      while (line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
      if (depth === 1 && line[j + 1] === ':') keys.push(JSON.parse(line.slice(i, j + 1)) as string);
      i = j;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return keys;
}

const duplicates = (keys: string[]) => keys.filter((k, i) => keys.indexOf(k) !== i);

describe('server log lines', () => {
  let wp: Waypost | undefined;
  afterEach(async () => wp?.close());

  it('a stored failure alert logs its level once, the alert level as alert_level', async () => {
    const { stream, lines } = capture();
    wp = await testWaypost({ logger: createLogger('info', stream), config: { alertEmail: 'owner@example.com' } });
    await sendFailureAlert(wp.core, {
      level: 'warning', webhook: { id: 'wh_1', name: 'CRM', url: 'https://crm.example.com/in' }, deliveryId: 'dlv_1',
      eventId: 'evt_1', eventType: 'booking.created', attempt: 3, totalAttempts: 5, error: 'HTTP 503',
      nextAttemptAt: '2027-03-01T09:20:00.000Z',
    });
    const line = lines.find((l) => l.includes('failure alert stored'));
    expect(line).toBeTruthy();
    expect(duplicates(topLevelKeys(line!))).toEqual([]);
    expect(JSON.parse(line!)).toMatchObject({ level: 40, alert_level: 'warning', webhook: 'wh_1', delivery: 'dlv_1' });
  });

  it('a logged object naming a key pino writes itself keeps it under another name', () => {
    const { stream, lines } = capture();
    const log = createLogger('info', stream);
    log.info({ level: 'critical', time: 'noon', msg: 'inner', pid: 1, hostname: 'h', service: 's', other: 1 }, 'hello');
    expect(lines).toHaveLength(1);
    expect(duplicates(topLevelKeys(lines[0]))).toEqual([]);
    expect(JSON.parse(lines[0])).toMatchObject({
      level: 30, msg: 'hello', service: 'waypost', logged_level: 'critical', logged_time: 'noon', logged_msg: 'inner',
      logged_pid: 1, logged_hostname: 'h', logged_service: 's', other: 1,
    });
  });
});
