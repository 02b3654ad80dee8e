import { describe, it, expect } from "vitest";
import { createMetricsRegistry } from "./metrics.js";
import { escapeHelp, escapeLabelValue, formatValue, PROMETHEUS_CONTENT_TYPE, renderPrometheusText } from "./prometheus.js";

describe("renderPrometheus", () => {
  it("renders a small registry in the 0.0.4 text format", () => {
    const registry = createMetricsRegistry();
    const calls = registry.counter("agent.tool_calls", "Tool calls executed.");
    calls.inc(1, { tool: "read" });
    calls.inc(2, { tool: "bash" });
    registry.gauge("agent.cost", "Running cost in USD.").set(0.25);
    const duration = registry.histogram("agent.duration", "Run duration in seconds.", [1, 5]);
    duration.observe(0.5);
    duration.observe(3);
    duration.observe(7);
    registry.counter("agent.iterations", "Loop iterations.");

    expect(registry.renderPrometheus()).toBe(
      [
        "# HELP hermes_agent_cost Running cost in USD.",
        "# TYPE hermes_agent_cost gauge",
        "hermes_agent_cost 0.25",
        "# HELP hermes_agent_duration Run duration in seconds.",
        "# TYPE hermes_agent_duration histogram",
        'hermes_agent_duration_bucket{le="1"} 1',
        'hermes_agent_duration_bucket{le="5"} 2',
        'hermes_agent_duration_bucket{le="+Inf"} 3',
        "hermes_agent_duration_sum 10.5",
        "hermes_agent_duration_count 3",
        "# HELP hermes_agent_iterations_total Loop iterations.",
        "# TYPE hermes_agent_iterations_total counter",
        "# HELP hermes_agent_tool_calls_total Tool calls executed.",
        "# TYPE hermes_agent_tool_calls_total counter",
        'hermes_agent_tool_calls_total{tool="bash"} 2',
        'hermes_agent_tool_calls_total{tool="read"} 1',
        "",
      ].join("\n"),
    );
  });

  it("renders histogram labels before le, sorted by name", () => {
    const registry = createMetricsRegistry({ prefix: "" });
    registry.histogram("latency", "L.", [0.5]).observe(0.1, { tool: "bash", kind: "exec" });
    expect(registry.renderPrometheus()).toBe(
      [
        "# HELP latency L.",
        "# TYPE latency histogram",
        'latency_bucket{kind="exec",tool="bash",le="0.5"} 1',
        'latency_bucket{kind="exec",tool="bash",le="+Inf"} 1',
        'latency_sum{kind="exec",tool="bash"} 0.1',
        'latency_count{kind="exec",tool="bash"} 1',
        "",
      ].join("\n"),
    );
  });

  it("escapes label values and help text", () => {
    const registry = createMetricsRegistry({ prefix: "" });
    registry.counter("errors", 'Errors by "kind"\nwith a back\\slash.').inc(1, { message: 'say "hi"\\now\nbye' });
    expect(registry.renderPrometheus()).toBe(
      [
        '# HELP errors_total Errors by "kind"\\nwith a back\\\\slash.',
        "# TYPE errors_total counter",
        'errors_total{message="say \\"hi\\"\\\\now\\nbye"} 1',
        "",
      ].join("\n"),
    );
    expect(escapeLabelValue('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
    expect(escapeHelp('a"b\\c\nd')).toBe('a"b\\\\c\\nd');
  });

  it("renders an empty registry as an empty string", () => {
    expect(createMetricsRegistry().renderPrometheus()).toBe("");
    expect(renderPrometheusText([])).toBe("");
  });

  it("formats special values the way Prometheus parses them", () => {
    expect(formatValue(Number.NaN)).toBe("NaN");
    expect(formatValue(Number.POSITIVE_INFINITY)).toBe("+Inf");
    expect(formatValue(Number.NEGATIVE_INFINITY)).toBe("-Inf");
    expect(formatValue(-2.5)).toBe("-2.5");
    expect(formatValue(1e-7)).toBe("1e-7");
    expect(PROMETHEUS_CONTENT_TYPE).toBe("text/plain; version=0.0.4; charset=utf-8");
  });
});
