// The span of one delivery attempt (tracing on): a child of the context its event stored at the outbox insert, so
// a booking's write and its deliveries are one trace, whichever process sends them. The receiver gets the attempt
// span's own `traceparent` and may continue the trace from it.
import type { SpanHandle, Tracing } from '../../tracing/index.js';
import type { AttemptResult } from './result.js';
import type { Prepared } from './request.js';

export function attemptSpan(
  traced: Tracing, p: Prepared, fn: (span: SpanHandle) => Promise<AttemptResult>,
): Promise<AttemptResult> {
  const attributes = {
    'http.request.method': 'POST',
    'server.address': hostOf(p.webhook.url),
    'waypost.webhook.id': p.webhook.id,
    'waypost.delivery.id': p.delivery.id,
    'waypost.delivery.attempt': p.attempt,
    'waypost.event.id': p.event.id,
    'waypost.event.type': p.event.type,
  };
  return traced.span('waypost.delivery.attempt', { kind: 'client', parent: p.event.traceparent, attributes },
    async (span) => {
      const result = await fn(span);
      span.setAttributes({
        'waypost.delivery.status': result.status, 'waypost.delivery.outcome': result.outcome?.kind ?? result.status,
        'waypost.receiver.duration_ms': result.durationMs,
        ...(result.responseStatus !== null ? { 'http.response.status_code': result.responseStatus } : {}),
      });
      if (result.error) span.fail(result.error);
      return result;
    });
}

/** The receiver's host only: a webhook URL's path or query may hold a token of the receiver's. */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
