// Tracing off (no OTEL_* variable, this file's process): a write carrying the bridge's traceparent is answered as
// ever, the event stores no trace context, the receiver gets no traceparent, and OpenTelemetry was never set up.
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import { startReceiver, type Receiver } from '../webhooks/engine/receiver.js';
import { addWebhook, booking } from '../webhooks/engine/fixtures.js';
import type { Waypost } from '../../src/sdk.js';
import { attemptDelivery } from '../../src/webhooks/delivery/attempt.js';
import { tracing } from '../../src/tracing/index.js';

describe.each(DIALECTS)('tracing off on %s', (dialect) => {
  let wp: Waypost;
  let receiver: Receiver;
  afterEach(async () => {
    await wp.close();
    await receiver.close();
  });

  it('stores and sends nothing of a trace, and loads no SDK', async () => {
    for (const k of Object.keys(process.env)) if (k.startsWith('OTEL_')) delete process.env[k];
    receiver = await startReceiver();
    wp = await testWaypost({ dialect, config: { pollMs: 3_600_000 } });
    await addWebhook(wp.core, receiver.url, { events: ['booking.created'] });
    const put = await (await wp.app()).inject({
      method: 'PUT', url: '/host/v1/bookings/101', payload: booking(),
      headers: { ...HOST_AUTH, traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    });
    expect(put.statusCode).toBe(201);
    const event = await wp.core.db.selectFrom('events').selectAll().executeTakeFirstOrThrow();
    expect(event.traceparent).toBeNull();
    const delivery = await wp.core.db.selectFrom('deliveries').select('id').executeTakeFirstOrThrow();
    expect((await attemptDelivery(wp.core, delivery.id)).status).toBe('succeeded');
    expect(receiver.requests[0].headers.traceparent).toBeUndefined();
    expect(tracing()).toBeNull();
    // OpenTelemetry's API keeps its registrations under this global once anything registers a provider.
    expect((globalThis as Record<symbol, unknown>)[Symbol.for('opentelemetry.js.api.1')]).toBeUndefined();
  });
});
