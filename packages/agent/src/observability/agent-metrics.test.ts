import type { Usage } from "@mariozechner/pi-ai";
import { describe, it, expect } from "vitest";
import { MAX_MODEL_LABELS, createAgentMetrics, recordLlmCall } from "./agent-metrics.js";
import { createMetricsRegistry } from "./metrics.js";

function usage(input: number, output: number, cacheRead: number, cacheWrite: number, cost: number): Usage {
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost } };
}

describe("createAgentMetrics", () => {
  it("registers the §10.3 agent metrics and the LLM token and cost counters with their types", async () => {
    const registry = createMetricsRegistry();
    createAgentMetrics(registry);
    const types = [...(await registry.renderPrometheus()).matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]);
    expect(types.sort()).toEqual([
      ["hermes_agent_cost", "gauge"],
      ["hermes_agent_duration", "histogram"],
      ["hermes_agent_iterations_total", "counter"],
      ["hermes_agent_llm_calls_total", "counter"],
      ["hermes_agent_tokens_input_total", "counter"],
      ["hermes_agent_tokens_output_total", "counter"],
      ["hermes_agent_tool_calls_total", "counter"],
      ["hermes_agent_tool_errors_total", "counter"],
      ["hermes_llm_cost_usd_total", "counter"],
      ["hermes_llm_tokens_total", "counter"],
    ]);
  });

  it("feeds the registry and returns the same metrics when created twice", async () => {
    const registry = createMetricsRegistry();
    const metrics = createAgentMetrics(registry);
    const again = createAgentMetrics(registry);
    metrics.iterations.inc();
    again.iterations.inc();
    metrics.toolCalls.inc(1, { tool: "read" });
    metrics.toolErrors.inc(1, { tool: "read" });
    metrics.duration.observe(12);

    const text = await registry.renderPrometheus();
    expect(again.iterations).toBe(metrics.iterations);
    expect(text).toContain("hermes_agent_iterations_total 2\n");
    expect(text).toContain('hermes_agent_tool_calls_total{tool="read"} 1\n');
    expect(text).toContain('hermes_agent_tool_errors_total{tool="read"} 1\n');
    expect(text).toContain('hermes_agent_duration_bucket{le="10"} 0\n');
    expect(text).toContain('hermes_agent_duration_bucket{le="30"} 1\n');
    expect(text).toContain("hermes_agent_duration_count 1\n");
  });
});

describe("recordLlmCall", () => {
  it("counts calls, tokens by direction and model, and cost", async () => {
    const registry = createMetricsRegistry();
    const metrics = createAgentMetrics(registry);
    const model = { provider: "anthropic", id: "claude-sonnet-4-5" };
    recordLlmCall(metrics, model, usage(120, 30, 1000, 50, 0.002));
    recordLlmCall(metrics, model, usage(80, 20, 0, 0, 0.003));
    recordLlmCall(metrics, { provider: "openai", id: "gpt-5" }, usage(10, 5, 0, 0, 0.001));

    const text = await registry.renderPrometheus();
    expect(text).toContain('hermes_agent_llm_calls_total{provider="anthropic",model="claude-sonnet-4-5"} 2\n');
    expect(text).toContain("hermes_agent_tokens_input_total 210\n");
    expect(text).toContain("hermes_agent_tokens_output_total 55\n");
    expect(text).toContain('hermes_llm_tokens_total{direction="input",model="claude-sonnet-4-5"} 200\n');
    expect(text).toContain('hermes_llm_tokens_total{direction="output",model="claude-sonnet-4-5"} 50\n');
    expect(text).toContain('hermes_llm_tokens_total{direction="cache_read",model="claude-sonnet-4-5"} 1000\n');
    expect(text).toContain('hermes_llm_tokens_total{direction="cache_write",model="claude-sonnet-4-5"} 50\n');
    expect(text).toContain('hermes_llm_tokens_total{direction="input",model="gpt-5"} 10\n');
    expect(text).toContain('hermes_llm_cost_usd_total{model="claude-sonnet-4-5"} 0.005\n');
    expect(text).toContain('hermes_llm_cost_usd_total{model="gpt-5"} 0.001\n');
    expect(text).toContain("hermes_agent_cost 0.006\n");
  });

  it("counts a malformed usage report as zero tokens instead of failing the run", async () => {
    const registry = createMetricsRegistry();
    const metrics = createAgentMetrics(registry);
    recordLlmCall(metrics, { provider: "custom", id: "m" }, { input: Number.NaN, output: -3 } as unknown as Usage);
    recordLlmCall(undefined, { provider: "custom", id: "m" }, usage(1, 1, 0, 0, 0));
    const text = await registry.renderPrometheus();
    expect(text).toContain('hermes_agent_llm_calls_total{provider="custom",model="m"} 1\n');
    expect(text).toContain('hermes_llm_tokens_total{direction="input",model="m"} 0\n');
  });

  it("keeps the model label bounded when people name many models", async () => {
    const registry = createMetricsRegistry();
    const metrics = createAgentMetrics(registry);
    for (let index = 0; index < MAX_MODEL_LABELS + 5; index += 1) recordLlmCall(metrics, { provider: "openai", id: `typed-${index}` }, usage(1, 1, 0, 0, 0));
    recordLlmCall(createAgentMetrics(registry), { provider: "openai", id: "typed-0" }, usage(1, 1, 0, 0, 0));

    const text = await registry.renderPrometheus();
    const models = new Set([...text.matchAll(/hermes_llm_cost_usd_total\{model="([^"]*)"\}/g)].map((match) => match[1]));
    expect(models.size).toBe(MAX_MODEL_LABELS + 1);
    expect(models.has("other")).toBe(true);
    expect(models.has(`typed-${MAX_MODEL_LABELS}`)).toBe(false);
    expect(text).toContain('hermes_agent_llm_calls_total{provider="openai",model="typed-0"} 2\n');
    expect(text).toContain('hermes_agent_llm_calls_total{provider="openai",model="other"} 5\n');
  });
});
