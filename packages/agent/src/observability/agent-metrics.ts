import type { Usage } from "@mariozechner/pi-ai";
import { addUsage, emptyUsageTotals, type ModelRef } from "./cost.js";
import type { Counter, Gauge, Histogram, MetricsRegistry } from "./metrics.js";

/** The agent-core metrics of seed spec §10.3, plus LLM token and cost counters per model. */
export interface AgentMetrics {
  iterations: Counter;
  toolCalls: Counter;
  toolErrors: Counter;
  llmCalls: Counter;
  tokensInput: Counter;
  tokensOutput: Counter;
  /** Running total in USD. */
  cost: Gauge;
  /** Seconds per agent run. */
  duration: Histogram;
  /** `hermes_llm_tokens_total{direction="input"|"output"|"cache_read"|"cache_write", model}`. */
  llmTokens: Counter;
  /** `hermes_llm_cost_usd_total{model}`. */
  llmCost: Counter;
  /** The `model` label for a model id: the first {@link MAX_MODEL_LABELS} distinct ids as they are, then "other". */
  modelLabel(modelId: string): string;
}

/**
 * With HERMES_BASE_URL, /model takes any id verbatim, so the ids people type are not bounded by configuration; each
 * would otherwise become a set of series that lives until the process ends.
 */
export const MAX_MODEL_LABELS = 20;

const modelLabelsByRegistry = new WeakMap<MetricsRegistry, (modelId: string) => string>();

function boundedModelLabels(registry: MetricsRegistry): (modelId: string) => string {
  const existing = modelLabelsByRegistry.get(registry);
  if (existing !== undefined) return existing;
  const seen = new Set<string>();
  const label = (modelId: string): string => {
    if (seen.has(modelId)) return modelId;
    if (seen.size >= MAX_MODEL_LABELS) return "other";
    seen.add(modelId);
    return modelId;
  };
  modelLabelsByRegistry.set(registry, label);
  return label;
}

/** Safe to call more than once on one registry: the same metrics come back. */
export function createAgentMetrics(registry: MetricsRegistry): AgentMetrics {
  return {
    iterations: registry.counter("agent.iterations", "Agent loop iterations."),
    toolCalls: registry.counter("agent.tool_calls", "Tool calls executed by the agent.", ["tool"]),
    toolErrors: registry.counter("agent.tool_errors", "Tool calls that ended in an error result.", ["tool"]),
    llmCalls: registry.counter("agent.llm_calls", "Requests sent to an LLM provider.", ["provider", "model"]),
    tokensInput: registry.counter("agent.tokens.input", "Input tokens sent to LLM providers."),
    tokensOutput: registry.counter("agent.tokens.output", "Output tokens received from LLM providers."),
    cost: registry.gauge("agent.cost", "Running total of LLM cost in USD."),
    duration: registry.histogram("agent.duration", "Agent run duration in seconds."),
    llmTokens: registry.counter("llm.tokens", "LLM tokens by direction (input, output, cache_read, cache_write) and model.", ["direction", "model"]),
    llmCost: registry.counter("llm.cost_usd", "LLM cost in USD by model, from the model's price table.", ["model"]),
    modelLabel: boundedModelLabels(registry),
  };
}

/** Counts one LLM request and what it used. */
export function recordLlmCall(metrics: AgentMetrics | undefined, model: ModelRef, usage: Usage): void {
  if (metrics === undefined) return;
  // addUsage treats missing, negative or non-finite fields as zero.
  const used = addUsage(emptyUsageTotals(), usage);
  const modelLabel = metrics.modelLabel(model.id);
  metrics.llmCalls.inc(1, { provider: model.provider, model: modelLabel });
  metrics.tokensInput.inc(used.input);
  metrics.tokensOutput.inc(used.output);
  metrics.cost.inc(used.costUsd);
  metrics.llmTokens.inc(used.input, { direction: "input", model: modelLabel });
  metrics.llmTokens.inc(used.output, { direction: "output", model: modelLabel });
  metrics.llmTokens.inc(used.cacheRead, { direction: "cache_read", model: modelLabel });
  metrics.llmTokens.inc(used.cacheWrite, { direction: "cache_write", model: modelLabel });
  metrics.llmCost.inc(used.costUsd, { model: modelLabel });
}
