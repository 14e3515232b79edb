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

  counter<L extends string>(
    name: string, help: string, labelNames: readonly L[] = [], collect?: (this: Counter<L>) => void,
  ): Counter<L> {
    return this.named(name, () => new Counter({ name, help, labelNames, registers: [this.registry], collect }));
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

  /**
   * A histogram without labels whose observations are counted in plain arrays and handed to the registry at the
   * scrape: for once-per-delivery paths, where prom-client's observe() (label handling per call) cost several times
   * as much (bench/results/delivery-metrics.json). Same exposition as a prom-client histogram.
   */
  plainHistogram(name: string, help: string, buckets: readonly number[]): { observe(value: number): void } {
    const counts = new Array<number>(buckets.length + 1).fill(0); // per bucket, the last one +Inf
    let sum = 0;
    const get = async () => {
      let count = 0;
      const values: Array<{ metricName: string; labels: Record<string, number | string>; value: number }> = [];
      for (let i = 0; i <= buckets.length; i++) {
        count += counts[i];
        const le = i < buckets.length ? buckets[i] : '+Inf';
        values.push({ metricName: `${name}_bucket`, labels: { le }, value: count });
      }
      values.push({ metricName: `${name}_sum`, labels: {}, value: sum });
      values.push({ metricName: `${name}_count`, labels: {}, value: count });
      return { name, help, type: 'histogram', aggregator: 'sum', values };
    };
    const reset = () => { counts.fill(0); sum = 0; };
    this.registry.registerMetric({ name, help, get, reset } as unknown as Metric);
    return {
      observe(value) {
        let i = 0;
        while (i < buckets.length && value > buckets[i]) i++;
        counts[i]++;
        sum += value;
      },
    };
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
