import { describe, it, expect } from "vitest";
import { createAgentMetrics } from "./agent-metrics.js";
import { createMetricsRegistry } from "./metrics.js";

describe("createAgentMetrics", () => {
  it("registers exactly the §10.3 agent metrics with their types", () => {
    const registry = createMetricsRegistry();
    createAgentMetrics(registry);
    expect(registry.snapshot().map((m) => [m.name, m.type])).toEqual([
      ["hermes_agent_cost", "gauge"],
      ["hermes_agent_duration", "histogram"],
      ["hermes_agent_iterations_total", "counter"],
      ["hermes_agent_llm_calls_total", "counter"],
      ["hermes_agent_tokens_input_total", "counter"],
      ["hermes_agent_tokens_output_total", "counter"],
      ["hermes_agent_tool_calls_total", "counter"],
      ["hermes_agent_tool_errors_total", "counter"],
    ]);
  });

  it("feeds the registry and returns the same metrics when created twice", () => {
    const registry = createMetricsRegistry();
    const metrics = createAgentMetrics(registry);
    const again = createAgentMetrics(registry);
    metrics.iterations.inc();
    again.iterations.inc();
    metrics.toolCalls.inc(1, { tool: "read" });
    metrics.toolErrors.inc(1, { tool: "read" });
    metrics.llmCalls.inc();
    metrics.tokensInput.inc(120);
    metrics.tokensOutput.inc(30);
    metrics.cost.inc(0.002);
    metrics.cost.inc(0.003);
    metrics.duration.observe(12);

    const text = registry.renderPrometheus();
    expect(again.iterations).toBe(metrics.iterations);
    expect(text).toContain("hermes_agent_iterations_total 2\n");
    expect(text).toContain('hermes_agent_tool_calls_total{tool="read"} 1\n');
    expect(text).toContain('hermes_agent_tool_errors_total{tool="read"} 1\n');
    expect(text).toContain("hermes_agent_llm_calls_total 1\n");
    expect(text).toContain("hermes_agent_tokens_input_total 120\n");
    expect(text).toContain("hermes_agent_tokens_output_total 30\n");
    expect(text).toContain("hermes_agent_cost 0.005\n");
    expect(text).toContain('hermes_agent_duration_bucket{le="10"} 0\n');
    expect(text).toContain('hermes_agent_duration_bucket{le="30"} 1\n');
    expect(text).toContain("hermes_agent_duration_count 1\n");
  });
});
