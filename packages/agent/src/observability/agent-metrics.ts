import type { Counter, Gauge, Histogram, MetricsRegistry } from "./metrics.js";

/** The agent-core metrics of seed spec §10.3. */
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
}

/** Safe to call more than once on one registry: the same metrics come back. */
export function createAgentMetrics(registry: MetricsRegistry): AgentMetrics {
  return {
    iterations: registry.counter("agent.iterations", "Agent loop iterations."),
    toolCalls: registry.counter("agent.tool_calls", "Tool calls executed by the agent."),
    toolErrors: registry.counter("agent.tool_errors", "Tool calls that ended in an error result."),
    llmCalls: registry.counter("agent.llm_calls", "Requests sent to an LLM provider."),
    tokensInput: registry.counter("agent.tokens.input", "Input tokens sent to LLM providers."),
    tokensOutput: registry.counter("agent.tokens.output", "Output tokens received from LLM providers."),
    cost: registry.gauge("agent.cost", "Running total of LLM cost in USD."),
    duration: registry.histogram("agent.duration", "Agent run duration in seconds."),
  };
}
