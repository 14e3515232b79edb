// The OpenTelemetry SDK, loaded only when tracing is on (src/tracing/index.ts imports this file on demand). Every
// setting comes from the SDK's own OTEL_* variables: the exporter's endpoint, headers, timeout and compression, the
// sampler (OTEL_TRACES_SAMPLER, default parentbased_always_on), the batch processor (OTEL_BSP_*), the resource
// (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES). Waypost only picks the exporter the variables name.
import {
  context, diag, DiagLogLevel, propagation, ROOT_CONTEXT, SpanKind as OtelKind, SpanStatusCode, trace,
  type Context, type Span,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { ConfigError } from '../config.js';
import type { SpanHandle, SpanKind, SpanOptions, Tracing } from './types.js';

type Env = Record<string, string | undefined>;

const KINDS: Record<SpanKind, OtelKind> = {
  server: OtelKind.SERVER, client: OtelKind.CLIENT, internal: OtelKind.INTERNAL,
};

/** The exporter OTEL_TRACES_EXPORTER names (otlp by default), over the protocol OTEL_EXPORTER_OTLP_*PROTOCOL names. */
function exporterFor(env: Env): SpanExporter {
  const named = (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase() || 'otlp';
  if (named === 'console') return new ConsoleSpanExporter();
  if (named !== 'otlp') throw new ConfigError('OTEL_TRACES_EXPORTER', `expected otlp, console or none, got "${named}"`);
  const variable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (env[variable] ?? '').trim() || 'http/protobuf';
  if (protocol === 'http/protobuf') return new ProtoExporter();
  if (protocol === 'http/json') return new JsonExporter();
  throw new ConfigError(variable, `expected http/protobuf or http/json (grpc is not bundled), got "${protocol}"`);
}

/** Builds, registers and returns the process's tracing; the SDK's warnings (an export that failed) go to `warn`. */
export function startSdk(version: string, env: Env, warn: (message: string) => void): Tracing {
  const ignore = () => undefined;
  const say = (message: string, ...args: unknown[]) => warn([message, ...args.map(String)].join(' '));
  diag.setLogger({ error: say, warn: say, info: ignore, debug: ignore, verbose: ignore }, DiagLogLevel.WARN);
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'waypost', [ATTR_SERVICE_VERSION]: version })
    .merge(detectResources({ detectors: [envDetector] })); // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES win
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporterFor(env))] });
  // AsyncLocalStorage context (a span is the parent of what its work awaits) and W3C trace context only: the
  // bridge sends a traceparent, receivers get one.
  provider.register({ propagator: new W3CTraceContextPropagator() });
  const tracer = trace.getTracer('waypost', version);

  const parentContext = (parent: string | null | undefined): Context =>
    parent ? propagation.extract(ROOT_CONTEXT, { traceparent: parent }) : context.active();
  const traceparentOf = (ctx: Context): string | null => {
    const carrier: Record<string, string> = {};
    propagation.inject(ctx, carrier);
    return carrier.traceparent ?? null;
  };
  const handle = (span: Span): SpanHandle & { end(): void } => ({
    setAttributes: (attributes) => { span.setAttributes(attributes); },
    fail: (message) => { span.setStatus({ code: SpanStatusCode.ERROR, message }); },
    traceparent: () => traceparentOf(trace.setSpan(ROOT_CONTEXT, span))!,
    end: () => { span.end(); },
  });
  const begin = (name: string, options: SpanOptions) => tracer.startSpan(name, {
    kind: KINDS[options.kind ?? 'internal'], attributes: options.attributes,
  }, parentContext(options.parent));

  return {
    async span(name, options, fn) {
      const span = begin(name, options);
      try {
        return await context.with(trace.setSpan(context.active(), span), () => fn(handle(span)));
      } catch (err) {
        // A refusal of bad input (an AppError's 4xx) is the client's error, not the span's (OpenTelemetry's HTTP
        // conventions); anything else fails it.
        const status = (err as { status?: unknown }).status;
        if (!(typeof status === 'number' && status < 500)) {
          span.recordException(err as Error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        }
        throw err;
      } finally {
        span.end();
      }
    },
    start: (name, options) => handle(begin(name, options)),
    activeTraceparent: () => (trace.getSpan(context.active()) ? traceparentOf(context.active()) : null),
    flush: () => provider.forceFlush(),
  };
}
