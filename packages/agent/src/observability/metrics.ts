import { Counter as PromCounter, Gauge as PromGauge, Histogram as PromHistogram, Registry, collectDefaultMetrics } from "prom-client";

/** Metrics on a prom-client registry, exposed in the Prometheus text format. */
export type Labels = Record<string, string>;

export interface Counter {
  /** Negative and non-finite values are ignored. */
  inc(value?: number, labels?: Labels): void;
}

export interface Gauge {
  /** Non-finite values are ignored. */
  set(value: number, labels?: Labels): void;
  inc(value?: number, labels?: Labels): void;
}

export interface Histogram {
  /** Non-finite values are ignored. */
  observe(value: number, labels?: Labels): void;
}

export interface GaugeOptions {
  labelNames?: readonly string[];
  /**
   * Read on every scrape (an unlabelled value such as a queue length). A read that fails or outlasts
   * {@link COLLECT_TIMEOUT_MS} keeps the last value, so a slow dependency cannot hang /metrics.
   */
  collect?: () => number | Promise<number>;
}

export interface HistogramOptions {
  labelNames?: readonly string[];
  buckets?: readonly number[];
}

export interface MetricsRegistry {
  /**
   * Names get the prefix (default `hermes_`), dots become underscores and counters end in `_total`. Label names are
   * declared up front; using another label is a programming error and throws. The same name twice returns the same
   * metric; a name reused with another type throws.
   */
  counter(name: string, help: string, labelNames?: readonly string[]): Counter;
  gauge(name: string, help: string, options?: GaugeOptions): Gauge;
  histogram(name: string, help: string, options?: HistogramOptions): Histogram;
  /** Prometheus text exposition of every metric, including the process metrics when enabled. */
  renderPrometheus(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsRegistryOptions {
  prefix?: string;
  /** prom-client's default process and Node.js metrics (`process_resident_memory_bytes`, `nodejs_eventloop_lag_seconds`, …). */
  processMetrics?: boolean;
}

export const DEFAULT_SECONDS_BUCKETS: readonly number[] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export const COLLECT_TIMEOUT_MS = 1_000;

type Kind = "counter" | "gauge" | "histogram";

interface Registered {
  kind: Kind;
  api: Counter | Gauge | Histogram;
}

export function createMetricsRegistry(options: MetricsRegistryOptions = {}): MetricsRegistry {
  const prefix = options.prefix ?? "hermes_";
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  const registered = new Map<string, Registered>();

  const claim = (name: string, kind: Kind): { exposed: string; existing?: Registered } => {
    if (typeof name !== "string" || name.length === 0) throw new TypeError("metric name must be a non-empty string");
    const key = prefix + name.replace(/\./g, "_");
    const exposed = kind === "counter" && !key.endsWith("_total") ? `${key}_total` : key;
    const existing = registered.get(exposed);
    if (existing !== undefined && existing.kind !== kind) {
      throw new TypeError(`metric ${JSON.stringify(name)} is already registered as a ${existing.kind}`);
    }
    return existing === undefined ? { exposed } : { exposed, existing };
  };

  const remember = <T extends Counter | Gauge | Histogram>(exposed: string, kind: Kind, api: T): T => {
    registered.set(exposed, { kind, api });
    return api;
  };

  return {
    counter(name, help, labelNames = []) {
      const { exposed, existing } = claim(name, "counter");
      if (existing !== undefined) return existing.api as Counter;
      const metric = new PromCounter({ name: exposed, help, labelNames: [...labelNames], registers: [registry] });
      return remember<Counter>(exposed, "counter", {
        inc(value = 1, labels) {
          if (isFiniteNumber(value) && value >= 0) metric.inc(labels ?? {}, value);
        },
      });
    },

    gauge(name, help, gaugeOptions = {}) {
      const { exposed, existing } = claim(name, "gauge");
      if (existing !== undefined) return existing.api as Gauge;
      const read = gaugeOptions.collect;
      const metric = new PromGauge({
        name: exposed,
        help,
        labelNames: [...(gaugeOptions.labelNames ?? [])],
        registers: [registry],
        ...(read !== undefined && {
          async collect(this: PromGauge) {
            const value = await withTimeout(read, COLLECT_TIMEOUT_MS);
            if (value !== undefined) this.set(value);
          },
        }),
      });
      return remember<Gauge>(exposed, "gauge", {
        set(value, labels) {
          if (isFiniteNumber(value)) metric.set(labels ?? {}, value);
        },
        inc(value = 1, labels) {
          if (isFiniteNumber(value)) metric.inc(labels ?? {}, value);
        },
      });
    },

    histogram(name, help, histogramOptions = {}) {
      const { exposed, existing } = claim(name, "histogram");
      if (existing !== undefined) return existing.api as Histogram;
      const metric = new PromHistogram({
        name: exposed,
        help,
        labelNames: [...(histogramOptions.labelNames ?? [])],
        buckets: [...(histogramOptions.buckets ?? DEFAULT_SECONDS_BUCKETS)],
        registers: [registry],
      });
      return remember<Histogram>(exposed, "histogram", {
        observe(value, labels) {
          if (isFiniteNumber(value)) metric.observe(labels ?? {}, value);
        },
      });
    },

    renderPrometheus: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

/** The value, or undefined when the read failed or took too long. */
async function withTimeout(read: () => number | Promise<number>, timeoutMs: number): Promise<number | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
    timer.unref();
  });
  try {
    const value = await Promise.race([Promise.resolve().then(read), timedOut]);
    return value !== undefined && isFiniteNumber(value) ? value : undefined;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}
