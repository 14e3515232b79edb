// Shared setup for the delivery engine suites: webhooks inserted directly (the engine does not depend on the
// management service), a fake clock, and a real SMTP server.
import { SMTPServer } from 'smtp-server';
import { manualClock, type FakeClock } from '../../helpers/clock.js';
import type { AddressInfo } from 'node:net';
import type { Core } from '../../../src/core.js';
import { newId } from '../../../src/ids.js';
import { generateSecret } from '../../../src/webhooks/secrets.js';
import { EVENT_TYPE_NAMES } from '../../../src/webhooks/catalog.js';

export interface TestWebhook {
  id: string;
  secret: string;
  url: string;
}

export async function addWebhook(core: Core, url: string, options: {
  events?: string[]; name?: string; active?: boolean; secret?: string; maxPerSecond?: number;
  ordering?: 'none' | 'record';
} = {}): Promise<TestWebhook> {
  const id = newId('wh');
  const secret = options.secret ?? generateSecret();
  const now = new Date(core.clock.now()).toISOString();
  await core.db.insertInto('webhooks').values({
    id,
    name: options.name ?? 'Test hook',
    url,
    events: JSON.stringify(options.events ?? EVENT_TYPE_NAMES),
    secret,
    active: options.active === false ? 0 : 1,
    max_per_second: options.maxPerSecond ?? null,
    ordering: options.ordering ?? 'none',
    disabled_reason: null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  }).execute();
  return { id, secret, url };
}

/** A clock the test moves by hand (starting at 2027-03-01T09:00:00Z unless told). */
export const fakeClock = (start = Date.parse('2027-03-01T09:00:00Z')): FakeClock => manualClock(start);

export const booking = (over: Record<string, unknown> = {}) => ({
  status: 'booked', currency: 'EUR', total_amount: '1250.00', paid_amount: '250.00',
  customer: { email: 'ana@example.com', first_name: 'Ana', last_name: 'Silva' },
  trips: [{ trip_id: 7, title: 'Douro Valley', start_date: '2027-05-01', travellers: 2,
    line_items: [{ label: 'Adult', quantity: 2, price: '625.00', total: '1250.00' }] }],
  engine_version: '6.8.0', cart_version: '4.1', ...over,
});

export const payment = (over: Record<string, unknown> = {}) => ({
  booking_id: 101, status: 'pending', amount: '250.00', currency: 'EUR', gateway: 'stripe', ...over,
});

export interface Mail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
}

/** A real SMTP server (smtp-server) on a random port that keeps every message (answering after `delayMs`). */
export async function startSmtp(
  { delayMs = 0 } = {},
): Promise<{ url: string; mails: Mail[]; close(): Promise<void> }> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const folded = /^Subject: (.*(?:\r\n[ \t].*)*)/m.exec(raw)?.[1] ?? '';
        const subject = decodeWords(folded.replace(/\r\n[ \t]/g, ' '));
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject,
        });
        setTimeout(callback, delayMs);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, mails, close: () => new Promise((r) => server.close(() => r())) };
}

/** The text of a received e-mail with quoted-printable soft breaks and escapes decoded. */
export function mailText(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** Decodes RFC 2047 encoded words (nodemailer encodes long or non-ASCII subjects). */
function decodeWords(s: string): string {
  return s.replace(/=\?UTF-8\?([QB])\?([^?]*)\?=\s*/gi, (_m, enc: string, text: string) => enc.toUpperCase() === 'B'
    ? Buffer.from(text, 'base64').toString('utf8')
    : Buffer.from(text.replace(/_/g, ' ')
    .replace(/=([0-9A-F]{2})/gi, (_x, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8'));
}
