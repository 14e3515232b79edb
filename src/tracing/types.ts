// What the traced places see of OpenTelemetry: no runtime import, so that nothing of it loads while tracing is off.

/** A span in progress, as the traced places use it (the OpenTelemetry Span, narrowed). */
export interface SpanHandle {
  setAttributes(attributes: Record<string, string | number | boolean>): void;
  /** Marks the span failed (an error status with this message). */
  fail(message: string): void;
  /** This span's W3C `traceparent` (to send to a receiver, or to store for work done later). */
  traceparent(): string;
}

export type SpanKind = 'server' | 'client' | 'internal';

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Record<string, string | number | boolean>;
  /**
   * The parent, as a W3C `traceparent` (a request's header, or the context stored with an event); null or
   * undefined: the active span's context. A malformed value is ignored (the span starts a trace of its own).
   */
  parent?: string | null;
}

export interface Tracing {
  /** Runs `fn` in a new span (active for what `fn` awaits), ended when `fn` settles; a throw marks it failed. */
  span<T>(name: string, options: SpanOptions, fn: (span: SpanHandle) => Promise<T>): Promise<T>;
  /** Starts a span that `end()` ends (for a request whose start and end are separate hooks). */
  start(name: string, options: SpanOptions): SpanHandle & { end(): void };
  /** The active span's `traceparent`, or null outside any span. */
  activeTraceparent(): string | null;
  /** Exports what is buffered (at shutdown, and for tests); rejects when the collector cannot be reached. */
  flush(): Promise<void>;
}
