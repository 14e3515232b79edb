// Traces (issue 37): with only the standard OTEL_* variables set, one booking written through the Host API with the
// bridge's traceparent and delivered to a webhook arrives at an OTLP/HTTP collector (the default http/protobuf,
// decoded here) as one trace: request → record write → outbox insert → delivery attempt, the receiver holding the
// attempt span's traceparent; REST API requests are spans with the cache's outcome.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp.js';
import { startReceiver, type Receiver } from '../webhooks/engine/receiver.js';
import { addWebhook, booking } from '../webhooks/engine/fixtures.js';
import { apiRoot } from '../../src/config.js';
import { createApiKey } from '../../src/api/keys.js';
import type { Waypost } from '../../src/sdk.js';
import { startWorker, type Worker } from '../../src/webhooks/index.js';
import { tracing, tracingWanted } from '../../src/tracing/index.js';

const SERVER = 2;
const CLIENT = 3;

let collector: OtlpReceiver;
beforeAll(async () => {
  collector = await startOtlpReceiver();
  // What an operator sets: the collector's base URL (the exporter adds /v1/traces) and a name. Process-wide, as
  // OpenTelemetry is: this file runs in a process of its own.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url;
  process.env.OTEL_SERVICE_NAME = 'waypost-traced';
  process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
});
afterAll(async () => collector.close());

describe('tracing is off unless the OTEL_* variables name an exporter', () => {
  it('reads the standard variables', () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_SERVICE_NAME: 'waypost' })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
  });
});

describe.each(DIALECTS)('traces on %s', (dialect) => {
  let wp: Waypost;
  let receiver: Receiver;
  let worker: Worker | null = null;
  afterEach(async () => {
    await worker?.stop();
    worker = null;
    await wp.close();
    await receiver.close();
  });

  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  const inTrace = (traceId: string, name: string) => (s: ReceivedSpan) => s.traceId === traceId && s.name === name;
  /** The outbox span of the booking.created event in that trace. */
  const bookingOutbox = (traceId: string) => (s: ReceivedSpan) =>
    inTrace(traceId, 'waypost.outbox.insert')(s) && s.attributes['waypost.event.type'] === 'booking.created';

  it('one booking write is one trace from the bridge\'s traceparent to the receiver\'s', async () => {
    receiver = await startReceiver();
    wp = await testWaypost({ dialect, config: { pollMs: 3_600_000 } });
    const hook = await addWebhook(wp.core, receiver.url, { events: ['booking.created'] });
    worker = await startWorker(wp.core);
    const app = await wp.app();
    // As the bridge sends it: its checkout's trace, its own span the parent.
    const [traceId, bridgeSpan] = [hex(32), hex(16)];
    const put = await app.inject({
      method: 'PUT', url: '/host/v1/bookings/101', payload: booking(),
      headers: { ...HOST_AUTH, traceparent: `00-${traceId}-${bridgeSpan}-01` },
    });
    expect(put.statusCode).toBe(201);
    const [delivered] = await receiver.waitFor(1);
    await tracing()!.flush();

    const request = await collector.waitFor(inTrace(traceId, 'PUT /host/v1/:resource/:id'));
    expect(request).toMatchObject({ parentSpanId: bridgeSpan, kind: SERVER, service: 'waypost-traced' });
    expect(request.attributes).toMatchObject({ 'http.request.method': 'PUT', 'http.response.status_code': 201 });
    const write = await collector.waitFor(inTrace(traceId, 'waypost.record.write'));
    expect(write.parentSpanId).toBe(request.spanId);
    expect(write.attributes).toMatchObject({
      'waypost.resource': 'bookings', 'waypost.record.id': 101, 'waypost.record.created': true,
    });
    // The booking's own event (every event is stored now, the customer.created beside it too, with no delivery).
    const outbox = await collector.waitFor(bookingOutbox(traceId));
    expect(outbox.parentSpanId).toBe(write.spanId);
    const event = await wp.core.db.selectFrom('events').selectAll().where('type', '=', 'booking.created')
      .executeTakeFirstOrThrow();
    expect(outbox.attributes).toMatchObject({
      'waypost.event.type': 'booking.created', 'waypost.event.id': event.id, 'waypost.deliveries': 1,
    });
    // The context the worker continues from is stored with the event.
    expect(event.traceparent).toBe(`00-${traceId}-${outbox.spanId}-01`);

    const attempt = await collector.waitFor(inTrace(traceId, 'waypost.delivery.attempt'));
    expect(attempt).toMatchObject({ parentSpanId: outbox.spanId, kind: CLIENT });
    expect(attempt.attributes).toMatchObject({
      'waypost.webhook.id': hook.id, 'waypost.delivery.attempt': 1, 'http.response.status_code': 200,
      'waypost.event.id': event.id, 'waypost.delivery.outcome': 'succeeded', 'server.address': '127.0.0.1',
    });
    expect(attempt.attributes['waypost.receiver.duration_ms']).toBeTypeOf('number');
    // The receiver may continue the trace: its parent is the attempt.
    expect(delivered.headers.traceparent).toBe(`00-${traceId}-${attempt.spanId}-01`);
    // And the delivery log shows the header sent.
    const logged = await wp.core.db.selectFrom('delivery_attempts').select('request_headers').executeTakeFirstOrThrow();
    expect(JSON.parse(logged.request_headers).traceparent).toBe(delivered.headers.traceparent);
  });

  it('a failed attempt is a failed span, the retry a second attempt span under the same outbox insert', async () => {
    let answers = 0;
    receiver = await startReceiver((_req, res) => { res.writeHead(answers++ === 0 ? 503 : 200).end(); });
    // The retry is due 10 ms later: a short poll finds it (a first attempt is woken at commit instead).
    wp = await testWaypost({ dialect, config: { pollMs: 50, retryDelaysMs: [10] } });
    await addWebhook(wp.core, receiver.url, { events: ['booking.created'] });
    worker = await startWorker(wp.core);
    const traceId = hex(32);
    const put = await (await wp.app()).inject({
      method: 'PUT', url: '/host/v1/bookings/102', payload: booking(),
      headers: { ...HOST_AUTH, traceparent: `00-${traceId}-${hex(16)}-01` },
    });
    expect(put.statusCode).toBe(201);
    const [first, second] = await receiver.waitFor(2);
    await tracing()!.flush();
    const outbox = await collector.waitFor(bookingOutbox(traceId));
    const isAttempt = (n: number) => (s: ReceivedSpan) =>
      inTrace(traceId, 'waypost.delivery.attempt')(s) && s.attributes['waypost.delivery.attempt'] === n;
    const [failed, retried] = [await collector.waitFor(isAttempt(1)), await collector.waitFor(isAttempt(2))];
    expect(failed).toMatchObject({ parentSpanId: outbox.spanId, statusCode: 2 });
    expect(failed.attributes).toMatchObject({ 'http.response.status_code': 503, 'waypost.delivery.outcome': 'retry' });
    expect(retried).toMatchObject({ parentSpanId: outbox.spanId, statusCode: 0 });
    expect(first.headers.traceparent).toContain(failed.spanId);
    expect(second.headers.traceparent).toContain(retried.spanId);
  });

  it('a REST API request is a span with the cache\'s outcome', async () => {
    receiver = await startReceiver();
    wp = await testWaypost({ dialect });
    const app = await wp.app();
    const key = await createApiKey(wp.core, { label: 'reader', permissions: ['bookings.list'] });
    const headers = { 'access-token': key.key, 'access-secret': key.secret };
    const url = `${apiRoot(wp.config)}/bookings?perpage=3`;
    const traceIds = [hex(32), hex(32)];
    for (const traceId of traceIds) {
      const traceparent = `00-${traceId}-${hex(16)}-01`;
      const res = await app.inject({ method: 'GET', url, headers: { ...headers, traceparent } });
      expect(res.statusCode).toBe(200);
    }
    await tracing()!.flush();
    const route = `GET ${apiRoot(wp.config)}/bookings`;
    const [miss, hit] = [await collector.waitFor(inTrace(traceIds[0], route)),
      await collector.waitFor(inTrace(traceIds[1], route))];
    expect(miss).toMatchObject({ kind: SERVER });
    expect(miss.attributes).toMatchObject({ 'waypost.cache': 'miss', 'http.response.status_code': 200 });
    expect(hit.attributes).toMatchObject({ 'waypost.cache': 'hit', 'http.response.status_code': 200 });
  });
});
