import { describe, it, expect } from "vitest";
import { createMetricsRegistry, DEFAULT_SECONDS_BUCKETS } from "./metrics.js";

/** The sample lines of the exposition (no HELP/TYPE comments, no blank lines). */
async function samples(render: () => Promise<string>): Promise<string[]> {
  return (await render()).split("\n").filter((line) => line !== "" && !line.startsWith("#"));
}

describe("createMetricsRegistry counters", () => {
  it("exposes prefixed names with _total, counts per label set and ignores negative or non-finite values", async () => {
    const registry = createMetricsRegistry();
    const calls = registry.counter("agent.tool_calls", "Tool calls.", ["tool"]);
    calls.inc();
    calls.inc(2);
    calls.inc(-5);
    calls.inc(Number.NaN);
    calls.inc(Number.POSITIVE_INFINITY);
    calls.inc(1, { tool: "read" });
    calls.inc(3, { tool: "read" });

    const text = await registry.renderPrometheus();
    expect(text).toContain("# HELP hermes_agent_tool_calls_total Tool calls.\n# TYPE hermes_agent_tool_calls_total counter\n");
    expect(await samples(registry.renderPrometheus)).toEqual(["hermes_agent_tool_calls_total 3", 'hermes_agent_tool_calls_total{tool="read"} 4']);
  });

  it("returns the same metric for the same name and keeps a name that already ends in _total", async () => {
    const registry = createMetricsRegistry();
    const first = registry.counter("agent.llm_calls", "LLM calls.");
    const second = registry.counter("agent.llm_calls", "Other help.");
    expect(second).toBe(first);
    first.inc();
    second.inc();
    registry.counter("jobs_total", "Jobs.").inc(4);
    expect(await samples(registry.renderPrometheus)).toEqual(["hermes_agent_llm_calls_total 2", "hermes_jobs_total 4"]);
  });

  it("throws for a label that was not declared", () => {
    const registry = createMetricsRegistry();
    const counter = registry.counter("requests", "Requests.", ["platform"]);
    expect(() => counter.inc(1, { user: "42" })).toThrow(/label/);
  });
});

describe("createMetricsRegistry gauges", () => {
  it("sets and increments with and without labels, ignoring non-finite values", async () => {
    const registry = createMetricsRegistry({ prefix: "" });
    const cost = registry.gauge("agent.cost", "Cost.", { labelNames: ["model"] });
    cost.set(1.5);
    cost.inc(0.25);
    cost.inc(-1);
    cost.inc();
    cost.set(Number.NaN);
    cost.set(10, { model: "m" });
    cost.inc(undefined, { model: "m" });
    expect(await samples(registry.renderPrometheus)).toEqual(["agent_cost 1.75", 'agent_cost{model="m"} 11']);
  });

  it("reads a collected gauge on every scrape", async () => {
    const registry = createMetricsRegistry();
    let waiting = 3;
    registry.gauge("queue_waiting", "Runs waiting.", { collect: async () => waiting });
    expect(await samples(registry.renderPrometheus)).toEqual(["hermes_queue_waiting 3"]);
    waiting = 7;
    expect(await samples(registry.renderPrometheus)).toEqual(["hermes_queue_waiting 7"]);
  });

  it("keeps the last value when a collect fails or never answers", async () => {
    const registry = createMetricsRegistry();
    let read: () => Promise<number> = async () => 5;
    registry.gauge("deliveries_pending", "Pending.", { collect: () => read() });
    expect(await samples(registry.renderPrometheus)).toEqual(["hermes_deliveries_pending 5"]);
    read = async () => {
      throw new Error("database is locked");
    };
    expect(await samples(registry.renderPrometheus)).toEqual(["hermes_deliveries_pending 5"]);
    read = () => new Promise<number>(() => undefined);
    expect(await samples(registry.renderPrometheus)).toEqual(["hermes_deliveries_pending 5"]);
  });
});

describe("createMetricsRegistry histograms", () => {
  it("counts observations into cumulative buckets per label set", async () => {
    const registry = createMetricsRegistry();
    const latency = registry.histogram("tool.latency", "Latency.", { buckets: [1, 5], labelNames: ["tool"] });
    for (const value of [0.5, 1, 3, 8, Number.NaN]) latency.observe(value);
    latency.observe(2, { tool: "bash" });

    expect(await samples(registry.renderPrometheus)).toEqual([
      'hermes_tool_latency_bucket{le="1"} 2',
      'hermes_tool_latency_bucket{le="5"} 3',
      'hermes_tool_latency_bucket{le="+Inf"} 4',
      "hermes_tool_latency_sum 12.5",
      "hermes_tool_latency_count 4",
      'hermes_tool_latency_bucket{le="1",tool="bash"} 0',
      'hermes_tool_latency_bucket{le="5",tool="bash"} 1',
      'hermes_tool_latency_bucket{le="+Inf",tool="bash"} 1',
      'hermes_tool_latency_sum{tool="bash"} 2',
      'hermes_tool_latency_count{tool="bash"} 1',
    ]);
  });

  it("uses second-sized default buckets", async () => {
    const registry = createMetricsRegistry();
    registry.histogram("agent.duration", "Duration.").observe(400);
    const bounds = (await samples(registry.renderPrometheus)).flatMap((line) => /le="([^"]+)"/.exec(line)?.[1] ?? []);
    expect(DEFAULT_SECONDS_BUCKETS).toEqual([0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]);
    expect(bounds).toEqual([...DEFAULT_SECONDS_BUCKETS.map(String), "+Inf"]);
  });
});

describe("createMetricsRegistry exposition", () => {
  it("escapes label values and help text", async () => {
    const registry = createMetricsRegistry({ prefix: "" });
    registry.counter("errors", 'Errors by "kind"\nwith a back\\slash.', ["message"]).inc(1, { message: 'say "hi"\\now\nbye' });
    const text = await registry.renderPrometheus();
    expect(text).toContain('# HELP errors_total Errors by "kind"\\nwith a back\\\\slash.\n');
    expect(text).toContain('errors_total{message="say \\"hi\\"\\\\now\\nbye"} 1\n');
  });

  it("offers the Prometheus 0.0.4 text content type", () => {
    expect(createMetricsRegistry().contentType).toBe("text/plain; version=0.0.4; charset=utf-8");
  });

  it("adds prom-client's process and Node.js metrics only when asked", async () => {
    const plain = await createMetricsRegistry().renderPrometheus();
    expect(plain).not.toContain("process_resident_memory_bytes");
    const withProcess = await createMetricsRegistry({ processMetrics: true }).renderPrometheus();
    expect(withProcess).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(withProcess).toContain("# TYPE nodejs_eventloop_lag_seconds gauge");
  });
});

describe("createMetricsRegistry programming errors", () => {
  it("throws when a name is reused with another type", () => {
    const registry = createMetricsRegistry();
    registry.counter("agent.cost", "Counter.");
    expect(() => registry.histogram("agent.cost_total", "Histogram.")).toThrow(/already registered as a counter/);
    registry.gauge("agent.level", "Gauge.");
    expect(() => registry.histogram("agent.level", "Histogram.")).toThrow(/already registered as a gauge/);
  });

  it("throws for invalid metric names and label names", () => {
    const registry = createMetricsRegistry();
    expect(() => registry.counter("agent-runs", "Runs.")).toThrow(/name/i);
    expect(() => registry.counter("", "Empty.")).toThrow(TypeError);
    expect(() => registry.counter("runs", "Runs.", ["bad-name"])).toThrow(/label/i);
    expect(() => registry.histogram("sizes", "Sizes.", { labelNames: ["le"] })).toThrow(/le/);
  });
});
