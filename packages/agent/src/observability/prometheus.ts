import type { Labels, MetricSnapshot } from "./metrics.js";

/** Prometheus text exposition format, version 0.0.4. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/**
 * Renders metric snapshots in the order given (the registry already orders them by name, then labels).
 * Every line, including the last, ends with a newline; no metrics render as the empty string.
 */
export function renderPrometheusText(metrics: readonly MetricSnapshot[]): string {
  const lines: string[] = [];
  for (const metric of metrics) {
    lines.push(`# HELP ${metric.name} ${escapeHelp(metric.help)}`);
    lines.push(`# TYPE ${metric.name} ${metric.type}`);
    if (metric.type === "histogram") {
      for (const series of metric.series) {
        for (const bucket of series.buckets) {
          lines.push(sample(`${metric.name}_bucket`, series.labels, bucket.count, formatValue(bucket.le)));
        }
        lines.push(sample(`${metric.name}_bucket`, series.labels, series.count, "+Inf"));
        lines.push(sample(`${metric.name}_sum`, series.labels, series.sum));
        lines.push(sample(`${metric.name}_count`, series.labels, series.count));
      }
    } else {
      for (const series of metric.series) lines.push(sample(metric.name, series.labels, series.value));
    }
  }
  return lines.map((line) => line + "\n").join("");
}

function sample(name: string, labels: Labels, value: number, le?: string): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((label) => `${label}="${escapeLabelValue(labels[label] ?? "")}"`);
  if (le !== undefined) pairs.push(`le="${le}"`);
  const labelText = pairs.length > 0 ? `{${pairs.join(",")}}` : "";
  return `${name}${labelText} ${formatValue(value)}`;
}

/** HELP text escapes only backslash and newline. */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

/** Label values escape backslash, double quote and newline. */
export function escapeLabelValue(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}
