import { describe, it, expect } from "vitest";
import { createMetricsRegistry, DEFAULT_SECONDS_BUCKETS, type Labels } from "./metrics.js";

describe("createMetricsRegistry counters", () => {
  it("counts with and without labels and ignores negative or non-finite values", () => {
    const registry = createMetricsRegistry();
    const calls = registry.counter("agent.tool_calls", "Tool calls.");
    calls.inc();
    calls.inc(2);
    calls.inc(-5);
    calls.inc(Number.NaN);
    calls.inc(Number.POSITIVE_INFINITY);
    calls.inc(1, { tool: "read" });
    calls.inc(3, { tool: "read" });

    expect(registry.snapshot()).toEqual([
      {
        type: "counter",
        name: "hermes_agent_tool_calls_total",
        help: "Tool calls.",
        series: [
          { labels: {}, value: 3 },
          { labels: { tool: "read" }, value: 4 },
        ],
      },
    ]);
  });

  it("returns the same metric for the same name", () => {
    const registry = createMetricsRegistry();
    const first = registry.counter("agent.llm_calls", "LLM calls.");
    const second = registry.counter("agent.llm_calls", "Other help.");
    first.inc();
    second.inc();
    expect(second).toBe(first);
    expect(registry.snapshot()).toEqual([
      { type: "counter", name: "hermes_agent_llm_calls_total", help: "LLM calls.", series: [{ labels: {}, value: 2 }] },
    ]);
  });

  it("treats label order as irrelevant and drops empty label values", () => {
    const registry = createMetricsRegistry();
    const counter = registry.counter("requests", "Requests.");
    counter.inc(1, { b: "2", a: "1" });
    counter.inc(1, { a: "1", b: "2" });
    counter.inc(1, { a: "" });
    counter.inc(1, { a: undefined } as unknown as Labels);
    counter.inc(1, { a: 7 } as unknown as Labels);
    const snapshot = registry.snapshot()[0];
    expect(snapshot?.series).toEqual([
      { labels: {}, value: 2 },
      { labels: { a: "1", b: "2" }, value: 2 },
      { labels: { a: "7" }, value: 1 },
    ]);
  });
});

describe("createMetricsRegistry gauges", () => {
  it("sets and increments with and without labels", () => {
    const registry = createMetricsRegistry({ prefix: "" });
    const cost = registry.gauge("agent.cost", "Cost.");
    cost.set(1.5);
    cost.inc(0.25);
    cost.inc(-1);
    cost.inc();
    cost.set(Number.NaN);
    cost.set(10, { model: "m" });
    cost.inc(undefined, { model: "m" });
    expect(registry.snapshot()).toEqual([
      {
        type: "gauge",
        name: "agent_cost",
        help: "Cost.",
        series: [
          { labels: {}, value: 1.75 },
          { labels: { model: "m" }, value: 11 },
        ],
      },
    ]);
  });
});

describe("createMetricsRegistry histograms", () => {
  it("counts observations into cumulative buckets per label set", () => {
    const registry = createMetricsRegistry();
    const latency = registry.histogram("tool.latency", "Latency.", [5, 1, 1, Number.POSITIVE_INFINITY]);
    for (const value of [0.5, 1, 3, 8, Number.NaN]) latency.observe(value);
    latency.observe(2, { tool: "bash" });

    expect(registry.snapshot()).toEqual([
      {
        type: "histogram",
        name: "hermes_tool_latency",
        help: "Latency.",
        series: [
          { labels: {}, buckets: [{ le: 1, count: 2 }, { le: 5, count: 3 }], sum: 12.5, count: 4 },
          { labels: { tool: "bash" }, buckets: [{ le: 1, count: 0 }, { le: 5, count: 1 }], sum: 2, count: 1 },
        ],
      },
    ]);
  });

  it("uses second-sized default buckets", () => {
    const registry = createMetricsRegistry();
    registry.histogram("agent.duration", "Duration.").observe(400);
    const snapshot = registry.snapshot()[0];
    expect(DEFAULT_SECONDS_BUCKETS).toEqual([0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]);
    expect(snapshot?.type === "histogram" ? snapshot.series[0]?.buckets.map((b) => b.le) : []).toEqual(
      DEFAULT_SECONDS_BUCKETS,
    );
    expect(snapshot?.type === "histogram" ? snapshot.series[0]?.buckets.every((b) => b.count === 0) : false).toBe(true);
  });
});

describe("createMetricsRegistry programming errors", () => {
  it("throws when a name is reused with another type", () => {
    const registry = createMetricsRegistry();
    registry.counter("agent.cost", "Counter.");
    expect(() => registry.gauge("agent.cost", "Gauge.")).toThrow(/already registered as a counter/);
    expect(() => registry.histogram("agent.cost", "Histogram.")).toThrow(TypeError);
  });

  it("throws when two names would be exposed the same way", () => {
    const registry = createMetricsRegistry();
    registry.counter("jobs", "Jobs.");
    expect(() => registry.gauge("jobs_total", "Jobs gauge.")).toThrow(/collides/);
  });

  it("throws for invalid metric names, label names and buckets", () => {
    const registry = createMetricsRegistry();
    expect(() => registry.counter("agent-runs", "Runs.")).toThrow(/invalid metric name/);
    expect(() => registry.counter("", "Empty.")).toThrow(TypeError);
    const counter = registry.counter("runs", "Runs.");
    expect(() => counter.inc(1, { "bad-name": "x" })).toThrow(/invalid label name/);
    expect(() => counter.inc(1, { "1st": "x" })).toThrow(/invalid label name/);
    const histogram = registry.histogram("sizes", "Sizes.", [1]);
    expect(() => histogram.observe(1, { le: "x" })).toThrow(/reserved/);
    expect(() => registry.histogram("broken", "Broken.", [1, Number.NaN])).toThrow(/invalid histogram bucket/);
  });
});

describe("createMetricsRegistry ordering", () => {
  it("orders metrics by exposed name and series by labels", () => {
    const registry = createMetricsRegistry();
    registry.gauge("zeta", "Z.").set(1);
    const alpha = registry.counter("alpha", "A.");
    alpha.inc(1, { tool: "write" });
    alpha.inc(1, { tool: "bash" });
    alpha.inc(1, { mode: "x", tool: "bash" });
    alpha.inc(1);

    const snapshot = registry.snapshot();
    expect(snapshot.map((m) => m.name)).toEqual(["hermes_alpha_total", "hermes_zeta"]);
    expect(snapshot[0]?.series.map((s) => s.labels)).toEqual([
      {},
      { mode: "x", tool: "bash" },
      { tool: "bash" },
      { tool: "write" },
    ]);
  });
});
