import { renderPrometheusText } from "./prometheus.js";

/** In-process metrics registry (counters, gauges, histograms) exposed in Prometheus text format. */
export type Labels = Record<string, string>;

export interface Counter {
  /** Negative and non-finite values are ignored. */
  inc(value?: number, labels?: Labels): void;
}

export interface Gauge {
  set(value: number, labels?: Labels): void;
  inc(value?: number, labels?: Labels): void;
}

export interface Histogram {
  observe(value: number, labels?: Labels): void;
}

export interface SeriesSnapshot {
  labels: Labels;
  value: number;
}

/** Cumulative count of observations at or below `le`; the implicit +Inf bucket equals `count`. */
export interface BucketSnapshot {
  le: number;
  count: number;
}

export interface HistogramSeriesSnapshot {
  labels: Labels;
  buckets: BucketSnapshot[];
  sum: number;
  count: number;
}

/** `name` is the exposed Prometheus name (prefixed, `_total` on counters). */
export type MetricSnapshot =
  | { type: "counter" | "gauge"; name: string; help: string; series: SeriesSnapshot[] }
  | { type: "histogram"; name: string; help: string; series: HistogramSeriesSnapshot[] };

export interface MetricsRegistry {
  /** Same name twice returns the same metric; a name reused with another type throws. */
  counter(name: string, help: string): Counter;
  gauge(name: string, help: string): Gauge;
  histogram(name: string, help: string, buckets?: number[]): Histogram;
  /** Ordered by metric name, then labels. */
  snapshot(): MetricSnapshot[];
  renderPrometheus(): string;
}

export interface MetricsRegistryOptions {
  prefix?: string;
}

export const DEFAULT_SECONDS_BUCKETS: readonly number[] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

type LabelPairs = Array<[string, string]>;

interface Series<State> {
  pairs: LabelPairs;
  state: State;
}

interface HistogramState {
  counts: number[];
  sum: number;
  count: number;
}

type Family =
  | { type: "counter"; name: string; help: string; series: Map<string, Series<number>>; api: Counter }
  | { type: "gauge"; name: string; help: string; series: Map<string, Series<number>>; api: Gauge }
  | {
      type: "histogram";
      name: string;
      help: string;
      bounds: number[];
      series: Map<string, Series<HistogramState>>;
      api: Histogram;
    };

export function createMetricsRegistry(options: MetricsRegistryOptions = {}): MetricsRegistry {
  const prefix = options.prefix ?? "hermes_";
  const families = new Map<string, Family>();
  const exposedOwners = new Map<string, string>();

  const claim = (name: string, type: Family["type"]): { key: string; exposed: string; existing?: Family } => {
    if (typeof name !== "string" || name.length === 0) throw new TypeError("metric name must be a non-empty string");
    const key = prefix + name.replace(/\./g, "_");
    const exposed = type === "counter" && !key.endsWith("_total") ? `${key}_total` : key;
    if (!METRIC_NAME.test(exposed)) throw new TypeError(`invalid metric name: ${JSON.stringify(name)}`);
    const existing = families.get(key);
    if (existing !== undefined && existing.type !== type) {
      throw new TypeError(`metric ${JSON.stringify(name)} is already registered as a ${existing.type}`);
    }
    const owner = exposedOwners.get(exposed);
    if (existing === undefined && owner !== undefined) {
      throw new TypeError(`metric ${JSON.stringify(name)} collides with an existing metric named ${exposed}`);
    }
    return existing === undefined ? { key, exposed } : { key, exposed, existing };
  };

  const add = (key: string, family: Family): void => {
    families.set(key, family);
    exposedOwners.set(family.name, key);
  };

  return {
    counter(name, help) {
      const { key, exposed, existing } = claim(name, "counter");
      if (existing?.type === "counter") return existing.api;
      const series = new Map<string, Series<number>>();
      const api: Counter = {
        inc(value = 1, labels) {
          if (!isFiniteNumber(value) || value < 0) return;
          seriesFor(series, labels, undefined, () => 0).state += value;
        },
      };
      add(key, { type: "counter", name: exposed, help: String(help), series, api });
      return api;
    },

    gauge(name, help) {
      const { key, exposed, existing } = claim(name, "gauge");
      if (existing?.type === "gauge") return existing.api;
      const series = new Map<string, Series<number>>();
      const api: Gauge = {
        set(value, labels) {
          if (isFiniteNumber(value)) seriesFor(series, labels, undefined, () => 0).state = value;
        },
        inc(value = 1, labels) {
          if (isFiniteNumber(value)) seriesFor(series, labels, undefined, () => 0).state += value;
        },
      };
      add(key, { type: "gauge", name: exposed, help: String(help), series, api });
      return api;
    },

    histogram(name, help, buckets) {
      const { key, exposed, existing } = claim(name, "histogram");
      if (existing?.type === "histogram") return existing.api;
      const bounds = normalizeBuckets(buckets ?? DEFAULT_SECONDS_BUCKETS);
      const series = new Map<string, Series<HistogramState>>();
      const api: Histogram = {
        observe(value, labels) {
          if (!isFiniteNumber(value)) return;
          const state = seriesFor(series, labels, "le", () => ({ counts: bounds.map(() => 0), sum: 0, count: 0 })).state;
          const index = bounds.findIndex((bound) => value <= bound);
          if (index >= 0) state.counts[index] = (state.counts[index] ?? 0) + 1;
          state.sum += value;
          state.count += 1;
        },
      };
      add(key, { type: "histogram", name: exposed, help: String(help), bounds, series, api });
      return api;
    },

    snapshot: () => snapshotOf(families),
    renderPrometheus: () => renderPrometheusText(snapshotOf(families)),
  };
}

function snapshotOf(families: Map<string, Family>): MetricSnapshot[] {
  const ordered = [...families.values()].sort((a, b) => compareText(a.name, b.name));
  return ordered.map((family): MetricSnapshot => {
    const { type, name, help } = family;
    if (family.type === "histogram") {
      const series = sortedSeries(family.series).map(({ pairs, state }) => {
        let running = 0;
        const buckets = family.bounds.map((le, index) => {
          running += state.counts[index] ?? 0;
          return { le, count: running };
        });
        return { labels: Object.fromEntries(pairs), buckets, sum: state.sum, count: state.count };
      });
      return { type: "histogram", name, help, series };
    }
    const series = sortedSeries(family.series).map(({ pairs, state }) => ({
      labels: Object.fromEntries(pairs),
      value: state,
    }));
    return { type: family.type, name, help, series };
  });
}

function seriesFor<State>(
  series: Map<string, Series<State>>,
  labels: Labels | undefined,
  reserved: string | undefined,
  initial: () => State,
): Series<State> {
  const pairs = labelPairs(labels, reserved);
  const key = JSON.stringify(pairs);
  let entry = series.get(key);
  if (entry === undefined) {
    entry = { pairs, state: initial() };
    series.set(key, entry);
  }
  return entry;
}

function labelPairs(labels: Labels | undefined, reserved: string | undefined): LabelPairs {
  if (labels === null || typeof labels !== "object") return [];
  const pairs: LabelPairs = [];
  for (const [name, raw] of Object.entries(labels)) {
    if (!LABEL_NAME.test(name)) throw new TypeError(`invalid label name: ${JSON.stringify(name)}`);
    if (name === reserved) throw new TypeError(`label name "${name}" is reserved for this metric type`);
    const value = labelValue(raw);
    // Prometheus treats an empty label value as an absent label; dropping it keeps series unique.
    if (value !== "") pairs.push([name, value]);
  }
  return pairs.sort((a, b) => compareText(a[0], b[0]));
}

function labelValue(raw: unknown): string {
  if (typeof raw === "string") return raw;
  if (raw === undefined || raw === null) return "";
  try {
    return String(raw);
  } catch {
    return "";
  }
}

function sortedSeries<State>(series: Map<string, Series<State>>): Array<Series<State>> {
  return [...series.values()].sort((a, b) => compareLabelPairs(a.pairs, b.pairs));
}

function compareLabelPairs(a: LabelPairs, b: LabelPairs): number {
  const shared = Math.min(a.length, b.length);
  for (let i = 0; i < shared; i++) {
    const [nameA, valueA] = a[i] ?? ["", ""];
    const [nameB, valueB] = b[i] ?? ["", ""];
    const order = compareText(nameA, nameB) || compareText(valueA, valueB);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** Code-unit order, so output does not depend on the host locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function normalizeBuckets(buckets: readonly number[]): number[] {
  if (!Array.isArray(buckets)) throw new TypeError("histogram buckets must be an array of numbers");
  for (const bound of buckets) {
    if (typeof bound !== "number" || Number.isNaN(bound)) throw new TypeError(`invalid histogram bucket: ${String(bound)}`);
  }
  const finite = buckets.filter((bound) => Number.isFinite(bound));
  return [...new Set(finite)].sort((a, b) => a - b);
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}
