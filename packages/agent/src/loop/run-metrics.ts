import type { AssistantMessage } from "@mariozechner/pi-ai";
import { recordLlmCall } from "../observability/agent-metrics.js";
import type { ExecutedToolCall } from "../tools/executor.js";
import type { LoopDeps } from "./loop-deps.js";
import type { ModelBinding } from "./model-call.js";

/** Every model attempt counts toward cost and the LLM metrics, retries and continuations included. */
export function recordModelAttempt(deps: Pick<LoopDeps, "cost" | "metrics">, message: AssistantMessage, binding: ModelBinding): void {
  deps.cost.add(message.usage, { provider: binding.model.provider, id: binding.model.id });
  recordLlmCall(deps.metrics, binding.model, message.usage);
}

export function recordToolCalls(deps: Pick<LoopDeps, "metrics">, executed: readonly ExecutedToolCall[]): void {
  for (const result of executed) {
    // Names the model invented must not become metric labels (unbounded series).
    const tool = result.status === "unknown_tool" ? "unknown" : result.call.name;
    deps.metrics?.toolCalls.inc(1, { tool });
    if (result.message.isError) deps.metrics?.toolErrors.inc(1, { tool });
  }
}
