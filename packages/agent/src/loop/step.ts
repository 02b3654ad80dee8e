import type { Message, ToolCall } from "@mariozechner/pi-ai";
import { executeToolCalls } from "../tools/executor.js";
import type { AnyToolDefinition } from "../tools/types.js";
import type { LoopDeps } from "./loop-deps.js";
import { recordToolCalls } from "./run-metrics.js";

/** Runs the tool calls of one step and returns their results, in call order, for the transcript. */
export async function runStepTools(
  toolCalls: readonly ToolCall[],
  step: number,
  toolsByName: ReadonlyMap<string, AnyToolDefinition>,
  deps: LoopDeps,
): Promise<Message[]> {
  const executed = await executeToolCalls(toolCalls, {
    step,
    tools: toolsByName,
    signal: deps.signal,
    sessionId: deps.sessionId,
    caller: deps.caller,
    logger: deps.logger,
    defaultTimeoutMs: deps.defaultToolTimeoutMs,
    budget: deps.budget,
    callbacks: deps.callbacks,
    resultBudget: deps.resultBudget,
    spans: deps.spans,
    now: deps.now,
    checkpoints: deps.checkpoints,
  });
  recordToolCalls(deps, executed);
  return executed.map((result) => result.message);
}
