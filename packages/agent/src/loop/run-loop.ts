import type { AssistantMessage, Context, Message, ToolCall, UserMessage } from "@mariozechner/pi-ai";
import { repairArguments } from "../history/json-args.js";
import { repairHistory } from "../history/repair.js";
import { recordLlmCall, type AgentMetrics } from "../observability/agent-metrics.js";
import type { CostTracker } from "../observability/cost.js";
import type { Logger } from "../observability/logger.js";
import { markFailed, startChildSpan, withActiveScope, type SpanScope } from "../observability/tracer.js";
import { SPAN_NAMES } from "../observability/tracer-names.js";
import { executeToolCalls } from "../tools/executor.js";
import { toModelTools } from "../tools/registry.js";
import type { ResultBudgetOptions } from "../tools/result-budget.js";
import type { AnyToolDefinition, RunCaller } from "../tools/types.js";
import type { BudgetTracker } from "./budget.js";
import { invokeSafely, invokeSafelySync, type AgentCallbacks, type StatusEvent } from "./callbacks.js";
import { runGraceCall } from "./grace.js";
import type { ModelBinding } from "./model-call.js";
import { callWithRecovery, type CompressMessages, type ModelState, type RetryPolicy } from "./resilient-call.js";
import { assistantText, type RunStopReason } from "./result.js";
import type { ContextCompressor } from "../context/compressor.js";
import type { ClassifiedError } from "../errors/classify.js";

export interface LoopDeps {
  state: ModelState;
  fallback?: ModelBinding;
  systemPrompt: string;
  tools: readonly AnyToolDefinition[];
  budget: BudgetTracker;
  retry: RetryPolicy;
  logger: Logger;
  callbacks: AgentCallbacks;
  /** The run's signal: the caller's abort combined with the wall-time deadline. */
  signal: AbortSignal;
  /** Fires when the wall-time budget is used up (a stop for time, not the caller's abort). */
  deadline?: AbortSignal;
  sessionId: string;
  caller?: RunCaller;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
  compress?: CompressMessages;
  /** Recalled memory for this turn: sent next to the user's message, never stored in the transcript. */
  ephemeralContext?: string;
  /** Proactive compression before a model call when the transcript nears the context window. */
  compressor?: Pick<ContextCompressor, "shouldCompress" | "compress">;
  /** The run's span scope (its invoke_agent span); model calls, tools and compressions are children in it. */
  spans: SpanScope;
  metrics?: AgentMetrics;
  cost: CostTracker;
  defaultToolTimeoutMs: number;
  resultBudget: ResultBudgetOptions;
  now: () => number;
}

export interface LoopOutcome {
  text: string;
  stopReason: RunStopReason;
  history: Message[];
  /** Index in `history` where this run's messages start (0 after a compaction moved everything). */
  newFrom: number;
  compacted: boolean;
  error?: ClassifiedError;
}

const EMPTY_REPLY_NUDGE = "[Your previous reply was empty. Answer the last user message now, or call a tool.]";

/** The tool-calling loop of seed 000 §3: model call → tool calls → execution → repeat until a final answer. */
export async function runAgentLoop(prior: readonly Message[], input: UserMessage, deps: LoopDeps): Promise<LoopOutcome> {
  let history: Message[] = [...prior, input];
  let newFrom = prior.length;
  let compacted = false;
  let nudge: string | undefined;
  const toolsByName = new Map(deps.tools.map((tool) => [tool.name, tool]));
  const modelTools = toModelTools(deps.tools);

  const buildContext = (messages: Message[]): Context => {
    let withEphemeral = messages;
    const at = deps.ephemeralContext ? messages.indexOf(input) : -1;
    if (at >= 0 && deps.ephemeralContext) {
      withEphemeral = [...messages.slice(0, at), { role: "user", content: deps.ephemeralContext, timestamp: input.timestamp }, ...messages.slice(at)];
    }
    const withNudge: Message[] = nudge ? [...withEphemeral, { role: "user", content: nudge, timestamp: deps.now() }] : withEphemeral;
    return { systemPrompt: deps.systemPrompt, messages: withNudge, ...(modelTools.length > 0 ? { tools: modelTools } : {}) };
  };
  const outcome = (stopReason: RunStopReason, text: string, error?: ClassifiedError): LoopOutcome =>
    ({ text, stopReason, history, newFrom, compacted, error });
  const outOfTime = (): LoopOutcome => {
    const minutes = Math.max(1, Math.round(deps.budget.limits.maxWallTimeMs / 60_000));
    return outcome("WALL_TIME_EXCEEDED", `I ran out of time for this request (limit ${minutes} min) before finishing. Ask me to continue if you want me to pick up where I stopped.`);
  };
  // The deadline aborts the same signal as a stop does; which one fired decides what the person is told.
  const stopped = (): LoopOutcome => (deps.deadline?.aborted ? outOfTime() : outcome("ABORT", "Stopped."));
  let emptyReplies = 0;

  for (;;) {
    if (deps.signal.aborted) return stopped();
    if (deps.budget.wallTimeExceeded()) return outOfTime();
    if (deps.budget.stepsExhausted()) {
      const grace = await runGraceCall(history, deps);
      if (grace.message) history = [...history, grace.message];
      return outcome("MAX_ITERATIONS_EXCEEDED", grace.text);
    }

    const step = deps.budget.consumeStep();
    deps.metrics?.iterations.inc();
    const repaired = repairHistory(history, deps.now);
    if (repaired.notes.length > 0) {
      deps.logger.info("history repaired before model call", { repairs: repaired.notes.map((n) => n.kind) });
      notify(deps, { kind: "history_repair", message: `Repaired ${repaired.notes.length} protocol problem(s) in the transcript.`, details: { notes: repaired.notes } });
      history = repaired.messages;
      // Repairs may drop or add earlier messages; this run's part still starts at its own input.
      if (!compacted) newFrom = Math.max(0, history.indexOf(input));
    }
    if (deps.compressor?.shouldCompress(history, deps.systemPrompt) && deps.budget.tryConsumeCompaction()) {
      const done = await compressProactively(deps.compressor, history, deps);
      if (done) {
        history = done;
        newFrom = 0;
        compacted = true;
      }
      if (deps.signal.aborted) return stopped();
    }

    const call = await callWithRecovery(deps.state, history, buildContext, {
      ...deps,
      step,
      onAttempt: (message, binding) => recordAttempt(deps, message, binding),
    });
    nudge = undefined;
    if (!call.ok && call.code === "ABORT") return stopped();
    if (call.compacted) {
      history = call.messages;
      newFrom = 0;
      compacted = true;
    }
    if (!call.ok) return outcome(call.code, call.error.userMessage, call.error);

    const message = repairToolCalls(call.message, deps.logger);
    const toolCalls = message.content.filter((block): block is ToolCall => block.type === "toolCall");
    const text = assistantText(message);

    if (toolCalls.length === 0 && text.length === 0) {
      notify(deps, { kind: "empty_response", message: "The model returned an empty reply; asking again." });
      deps.logger.warn("empty model reply", { step, stopReason: message.stopReason });
      emptyReplies += 1;
      // Asked again once; a model that keeps answering nothing would otherwise burn the whole step budget.
      if (emptyReplies > 1) return outcome("API_ERROR", "The model returned an empty answer twice, so I have nothing to tell you. Please rephrase or try again.");
      if (deps.budget.stepsExhausted()) continue;
      nudge = EMPTY_REPLY_NUDGE;
      continue;
    }
    emptyReplies = 0;
    history = [...history, message];
    if (toolCalls.length === 0) {
      await stepDone(deps, step, text, [], message);
      return outcome("completed", text);
    }

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
    });
    for (const result of executed) {
      // Names the model invented must not become metric labels (unbounded series).
      const tool = result.status === "unknown_tool" ? "unknown" : result.call.name;
      deps.metrics?.toolCalls.inc(1, { tool });
      if (result.message.isError) deps.metrics?.toolErrors.inc(1, { tool });
    }
    history = [...history, ...executed.map((result) => result.message)];
    await stepDone(deps, step, text, toolCalls, message);
  }
}

async function compressProactively(
  compressor: NonNullable<LoopDeps["compressor"]>,
  history: Message[],
  deps: LoopDeps,
): Promise<Message[] | undefined> {
  notify(deps, { kind: "compression", message: "The conversation is getting long; compressing older messages." });
  const { span, scope } = startChildSpan(deps.spans, SPAN_NAMES.compression, {
    attributes: { "hermes.compression.reason": "proactive", "hermes.compression.messages_before": history.length },
  });
  let done: Awaited<ReturnType<ContextCompressor["compress"]>> = null;
  try {
    done = await withActiveScope(scope, () => compressor.compress(history, { reason: "proactive", sessionId: deps.sessionId, signal: deps.signal }));
  } catch (error) {
    deps.logger.error("context compression failed", { error: error instanceof Error ? error.message : String(error) });
  }
  span.setAttributes({
    "hermes.compression.messages_after": done?.messages.length ?? history.length,
    "hermes.compression.compressed": done !== null,
    "hermes.compression.saved_tokens": done?.savedTokens ?? 0,
    "hermes.compression.fallback": done?.fallback ?? "none",
  });
  if (!done) markFailed(span, "compression_failed", "compression produced nothing");
  span.end();
  return done?.messages;
}

function recordAttempt(deps: LoopDeps, message: AssistantMessage, binding: ModelBinding): void {
  deps.cost.add(message.usage, { provider: binding.model.provider, id: binding.model.id });
  recordLlmCall(deps.metrics, binding.model, message.usage);
}

/** Double-encoded or trailing-comma arguments have one reading; fix them before validation sees them. */
function repairToolCalls(message: AssistantMessage, logger: Logger): AssistantMessage {
  let changed = false;
  const content = message.content.map((block) => {
    if (block.type !== "toolCall") return block;
    const repaired = repairArguments(block.arguments as unknown);
    if (repaired.ok && repaired.repaired) {
      changed = true;
      logger.info("repaired tool-call arguments", { tool: block.name, toolCallId: block.id });
      return { ...block, arguments: repaired.value };
    }
    return block;
  });
  return changed ? { ...message, content } : message;
}

async function stepDone(deps: LoopDeps, step: number, text: string, calls: ToolCall[], message: AssistantMessage): Promise<void> {
  await invokeSafely(deps.logger, "onStep", deps.callbacks.onStep && (() =>
    deps.callbacks.onStep?.({ step, text, toolCalls: calls.map((c) => ({ id: c.id, name: c.name })), usage: message.usage })));
}

function notify(deps: LoopDeps, event: StatusEvent): void {
  invokeSafelySync(deps.logger, "onStatus", deps.callbacks.onStatus && (() => deps.callbacks.onStatus?.(event)));
}
