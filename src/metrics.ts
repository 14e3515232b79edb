// Prometheus metrics: one registry per Core, so every capability registers its own series next to the others and
// two Waypost instances in one process (tests, an embedding host) do not mix their counts. Node's process metrics
// (CPU, memory, event loop, GC) are per process, so they live in one shared registry and are appended to each
// scrape. Names follow Prometheus conventions: waypost_<capability>_<what>_<unit>, counters end in _total.
// The delivery engine's series are in src/webhooks/delivery/metrics.ts, the API's in src/api/ and src/http/.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import type { Core } from './core.js';

const processRegistry = new Registry();
collectDefaultMetrics({ register: processRegistry });

/** Seconds: from a cached answer (~1 ms) to a slow list or a database timeout. */
export const DURATION_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class Metrics {
  readonly registry = new Registry();

  /** The registry's metric of this name, created on first use (capabilities register lazily). */
  private named<M extends Metric>(name: string, make: () => M): M {
    return (this.registry.getSingleMetric(name) as M | undefined) ?? make();
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return this.named(name, () => new Counter({ name, help, labelNames, registers: [this.registry] }));
  }

  gauge<L extends string>(
    name: string, help: string, labelNames: readonly L[] = [], collect?: (this: Gauge<L>) => void | Promise<void>,
  ): Gauge<L> {
    return this.named(name, () => new Gauge({ name, help, labelNames, registers: [this.registry], collect }));
  }

  histogram<L extends string>(
    name: string, help: string, labelNames: readonly L[] = [], buckets = DURATION_BUCKETS,
  ): Histogram<L> {
    return this.named(name, () => new Histogram({ name, help, labelNames, buckets, registers: [this.registry] }));
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text: this Core's series, then the process's. */
  async scrape(): Promise<string> {
    return `${await this.registry.metrics()}\n${await processRegistry.metrics()}`;
  }
}

const perCore = new WeakMap<Core, Metrics>();

/** The metrics of this Core, created on first use. */
export function metricsOf(core: Core): Metrics {
  let m = perCore.get(core);
  if (!m) perCore.set(core, (m = new Metrics()));
  return m;
}
