import { validateToolArguments, type ToolCall, type ToolResultMessage } from "@mariozechner/pi-ai";
import type { BudgetTracker } from "../loop/budget.js";
import { invokeSafely, type AgentCallbacks, type ToolCallStatus } from "../loop/callbacks.js";
import type { Logger } from "../observability/logger.js";
import { markFailed, startChildSpan, withActiveScope, type SpanScope } from "../observability/tracer.js";
import { GEN_AI, HERMES_ATTRIBUTES, SPAN_NAMES } from "../observability/tracer-names.js";
import { planBatches, type PlannedCall } from "./batch-plan.js";
import { callKey } from "./call-key.js";
import type { CheckpointedCall, CheckpointedOutcome, ToolCheckpoints } from "./checkpoints.js";
import { applyResultBudget, type ResultBudgetOptions } from "./result-budget.js";
import { runWithDeadline } from "./run-with-deadline.js";
import type { AnyToolDefinition, RunCaller, ToolResult } from "./types.js";

export interface ExecuteToolCallsOptions {
  step: number;
  /** Tools the model was offered this turn, by name. */
  tools: ReadonlyMap<string, AnyToolDefinition>;
  signal: AbortSignal;
  sessionId: string;
  caller?: RunCaller;
  logger: Logger;
  defaultTimeoutMs: number;
  budget: BudgetTracker;
  callbacks: AgentCallbacks;
  resultBudget: ResultBudgetOptions;
  /** The run's span scope: each executed tool is an execute_tool child span in it. */
  spans: SpanScope;
  now: () => number;
  /** Durable results: a call an earlier attempt of this run finished is replayed, and each finished call is saved. */
  checkpoints?: ToolCheckpoints;
}

export interface ExecutedToolCall {
  call: ToolCall;
  status: ToolCallStatus;
  result: ToolResult;
  durationMs: number;
  message: ToolResultMessage;
  /** The result is the one an earlier attempt of the run recorded; the tool did not run again. */
  replayed?: boolean;
}

type CallOutcome = { status: ToolCallStatus; result: ToolResult; durationMs: number; replayed?: boolean };

interface PreparedCall {
  index: number;
  call: ToolCall;
  tool?: AnyToolDefinition;
  args: Record<string, unknown>;
  key: string;
  early?: { status: ToolCallStatus; result: ToolResult };
  paths?: string[];
}

/**
 * Runs the tool calls of one model response. Calls run concurrently where their concurrency classes allow; results
 * come back in call order whatever order they finish in. Every failure becomes a tool result the model can read.
 */
export async function executeToolCalls(
  calls: readonly ToolCall[],
  options: ExecuteToolCallsOptions,
): Promise<ExecutedToolCall[]> {
  const prepared = calls.map((call, index) => prepare(call, index, options));
  const outcomes = new Array<CallOutcome | undefined>(calls.length);

  for (const p of prepared) {
    if (p.early) {
      outcomes[p.index] = { ...p.early, durationMs: 0 };
      await notifyEnd(p, p.early.status, p.early.result, 0, options);
    }
  }

  const runnable: PlannedCall[] = prepared
    .filter((p) => !p.early && p.tool)
    .map((p) => ({ index: p.index, concurrency: p.tool?.concurrency ?? "never-parallel", paths: p.paths }));

  for (const group of planBatches(runnable)) {
    await Promise.all(
      group.map(async (index) => {
        const p = prepared[index];
        if (!p) return;
        outcomes[index] = await runOne(p, options);
      }),
    );
  }

  const budgeted = await applyResultBudget(
    prepared.map((p) => ({
      toolCallId: p.call.id,
      toolName: p.call.name,
      content: outcomes[p.index]?.result.content ?? "",
      maxChars: p.tool?.maxResultChars,
    })),
    options.resultBudget,
  );

  return prepared.map((p, i) => {
    const outcome = outcomes[p.index] ?? { status: "aborted" as const, result: cancelledResult(), durationMs: 0 };
    const content = budgeted[i]?.content ?? outcome.result.content;
    return {
      call: p.call,
      status: outcome.status,
      result: outcome.result,
      durationMs: outcome.durationMs,
      ...(outcome.replayed ? { replayed: true } : {}),
      message: {
        role: "toolResult",
        toolCallId: p.call.id,
        toolName: p.call.name,
        content: [{ type: "text", text: content }, ...(outcome.result.images ?? []).map((image) => ({ type: "image" as const, ...image }))],
        isError: outcome.result.isError === true,
        timestamp: options.now(),
      },
    };
  });
}

function prepare(call: ToolCall, index: number, options: ExecuteToolCallsOptions): PreparedCall {
  const rawArgs = call.arguments ?? {};
  const tool = options.tools.get(call.name);
  if (!tool) {
    const names = [...options.tools.keys()].join(", ") || "(none)";
    return {
      index, call, args: rawArgs, key: callKey(call.name, rawArgs),
      early: { status: "unknown_tool", result: { isError: true, content: `Unknown tool "${call.name}". Available tools: ${names}.` } },
    };
  }
  let args: Record<string, unknown>;
  try {
    args = validateToolArguments(
      { name: tool.name, description: tool.description, parameters: tool.parameters },
      { ...call, arguments: rawArgs },
    ) as Record<string, unknown>;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      index, call, tool, args: rawArgs, key: callKey(call.name, rawArgs),
      early: { status: "invalid", result: { isError: true, content: `Invalid arguments for ${tool.name}: ${reason}\nFix the arguments to match the tool's schema and call it again.` } },
    };
  }
  const key = callKey(call.name, args);
  const failures = options.budget.failuresOf(key);
  if (failures > options.budget.limits.maxToolRetriesPerCall) {
    return {
      index, call, tool, args, key,
      early: { status: "repeated", result: { isError: true, content: `This exact ${tool.name} call has already failed ${failures} times in this run. Do not repeat it; change the arguments or take another approach.` } },
    };
  }
  let paths: string[] | undefined;
  if (tool.concurrency === "path-scoped" && tool.paths) {
    try {
      paths = tool.paths(args);
    } catch {
      paths = undefined;
    }
  }
  return { index, call, tool, args, key, paths };
}

async function runOne(p: PreparedCall, options: ExecuteToolCallsOptions): Promise<CallOutcome> {
  const tool = p.tool as AnyToolDefinition;
  if (options.signal.aborted) {
    const result = cancelledResult();
    await notifyEnd(p, "aborted", result, 0, options);
    return { status: "aborted", result, durationMs: 0 };
  }
  const identity: CheckpointedCall = { step: options.step, position: p.index, toolCallId: p.call.id, toolName: tool.name, arguments: p.args };
  const replay = options.checkpoints?.recorded(identity);
  if (replay) {
    // The side effect already happened in an earlier attempt; tool:before hooks judged it then.
    options.logger.info("tool result replayed from checkpoint", { tool: tool.name, toolCallId: p.call.id, step: options.step });
    if (replay.status !== "ok") options.budget.recordFailure(p.key);
    await notifyEnd(p, replay.status, replay.result, replay.durationMs, options, true);
    return { ...replay, replayed: true };
  }
  const gate = await invokeSafely(options.logger, "onToolStart", options.callbacks.onToolStart && (() =>
    options.callbacks.onToolStart?.({ step: options.step, toolCallId: p.call.id, toolName: tool.name, arguments: p.args })));
  if (gate && gate.block) {
    const result: ToolResult = { isError: true, content: `This call was blocked by the operator's policy: ${gate.reason}` };
    await notifyEnd(p, "blocked", result, 0, options);
    return { status: "blocked", result, durationMs: 0 };
  }

  // Tools of one batch run concurrently; each span gets its parent explicitly and runs with its own context active.
  const { span, scope } = startChildSpan(options.spans, SPAN_NAMES.executeTool(tool.name), {
    attributes: {
      [GEN_AI.operationName]: "execute_tool",
      [GEN_AI.toolName]: tool.name,
      [GEN_AI.toolCallId]: p.call.id,
      [GEN_AI.toolType]: "function",
      [HERMES_ATTRIBUTES.step]: options.step,
    },
  });
  const started = options.now();
  const outcome = await withActiveScope(scope, () => runWithDeadline(tool, p.args, {
    parentSignal: options.signal,
    timeoutMs: tool.timeoutMs ?? options.defaultTimeoutMs,
    toolCallId: p.call.id,
    sessionId: options.sessionId,
    caller: options.caller,
    logger: options.logger.child({ tool: tool.name, toolCallId: p.call.id }),
  }));
  const durationMs = options.now() - started;

  let status: ToolCallStatus;
  let result: ToolResult;
  switch (outcome.kind) {
    case "done":
      result = outcome.result;
      status = result.isError ? "error" : "ok";
      break;
    case "timeout":
      status = "timeout";
      result = { isError: true, content: `${tool.name} timed out after ${Math.round(outcome.timeoutMs / 1000)} s and was stopped.` };
      break;
    case "aborted":
      status = "aborted";
      result = cancelledResult();
      break;
    case "threw":
      status = "error";
      options.logger.error("tool handler threw", { tool: tool.name, toolCallId: p.call.id, error: outcome.error });
      result = { isError: true, content: `${tool.name} failed: ${outcome.error}` };
      break;
  }
  if (status !== "ok" && status !== "aborted") options.budget.recordFailure(p.key);

  span.setAttributes({ [HERMES_ATTRIBUTES.toolStatus]: status, [HERMES_ATTRIBUTES.toolResultChars]: result.content.length });
  // The status names the failure only: a tool's output may hold anything (files, pages, user data).
  if (status !== "ok") markFailed(span, status === "error" ? "tool_error" : status);
  span.end();
  if (status === "ok" || status === "error" || status === "timeout") await saveCheckpoint(identity, { status, result, durationMs }, options);
  await notifyEnd(p, status, result, durationMs, options);
  return { status, result, durationMs };
}

/** Saved before anything else happens, so a crash from here on replays the call instead of running it again. */
async function saveCheckpoint(call: CheckpointedCall, outcome: CheckpointedOutcome, options: ExecuteToolCallsOptions): Promise<void> {
  if (!options.checkpoints) return;
  try {
    await options.checkpoints.record(call, outcome);
  } catch (error) {
    // The answer matters more than crash safety: the run goes on, and only a crash before it ends would repeat the call.
    options.logger.error("tool checkpoint not saved; the call would run again if this run is re-executed", { tool: call.toolName, toolCallId: call.toolCallId, error });
  }
}

async function notifyEnd(
  p: PreparedCall,
  status: ToolCallStatus,
  result: ToolResult,
  durationMs: number,
  options: ExecuteToolCallsOptions,
  replayed = false,
): Promise<void> {
  await invokeSafely(options.logger, "onToolEnd", options.callbacks.onToolEnd && (() =>
    options.callbacks.onToolEnd?.({ step: options.step, toolCallId: p.call.id, toolName: p.call.name, arguments: p.args, result, status, durationMs, ...(replayed ? { replayed } : {}) })));
}

function cancelledResult(): ToolResult {
  return { isError: true, content: "Cancelled: the run was stopped before this call finished." };
}
