// OpenTelemetry traces, configured only by the standard OTEL_* variables of the process (docs/operations.md
// "Tracing"). Off unless an exporter is named: then nothing of the SDK is loaded (src/tracing/sdk.ts is imported on
// demand) and `tracing()` is null, which every traced place checks first, so the untraced path stays as it was.
// A leaf: capabilities import it, it imports none of them.

import type { Tracing } from './types.js';

export type { SpanHandle, SpanKind, SpanOptions, Tracing } from './types.js';

let started: Tracing | null = null;
let starting: Promise<Tracing | null> | null = null;

/** The process's tracing, or null when it is off. */
export const tracing = (): Tracing | null => started;

type Env = Record<string, string | undefined>;

/**
 * Whether the environment asks for traces: an OTLP endpoint or OTEL_TRACES_EXPORTER names an exporter, and
 * OTEL_SDK_DISABLED is not true. OTEL_TRACES_EXPORTER=none turns it off whatever else is set.
 */
export function tracingWanted(env: Env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporter = (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase();
  if (exporter === 'none') return false;
  return exporter !== '' || Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) || Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * Starts tracing once per process when the environment asks for it (OpenTelemetry's provider, context and
 * propagator are process-wide: a second Waypost in the same process shares them). Null when off.
 */
export async function startTracing(
  version: string, warn: (message: string) => void, env: Env = process.env,
): Promise<Tracing | null> {
  if (started || !tracingWanted(env)) return started;
  starting ??= import('./sdk.js').then((sdk) => (started = sdk.startSdk(version, env, warn)));
  return starting;
}
