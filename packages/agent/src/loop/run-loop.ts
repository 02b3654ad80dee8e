import type { AssistantMessage, Message, ToolCall, UserMessage } from "@mariozechner/pi-ai";
import { repairHistory } from "../history/repair.js";
import { toModelTools } from "../tools/registry.js";
import type { ClassifiedError } from "../errors/classify.js";
import { repairToolCallArguments } from "./argument-repair.js";
import { notifyStatus, reportStep } from "./callbacks.js";
import { ContinuationCounter, continuationTail, cutOffCallResults, isCutOff, joinContinuation, withCutOffNote, type CutOffCause } from "./continuation.js";
import { EmptyReplyPolicy } from "./empty-reply.js";
import { runGraceCall, type GraceCause } from "./grace.js";
import type { LoopDeps, LoopOutcome } from "./loop-deps.js";
import { modelContext } from "./model-context.js";
import { compressProactively } from "./proactive-compression.js";
import { callWithRecovery, type RecoveredCall } from "./resilient-call.js";
import { assistantText, type RunStopReason } from "./result.js";
import { recordModelAttempt } from "./run-metrics.js";
import { runStepTools } from "./step.js";

export type { LoopDeps, LoopOutcome } from "./loop-deps.js";

/** The tool-calling loop of seed 000 §3: model call → tool calls → execution → repeat until a final answer. */
export async function runAgentLoop(prior: readonly Message[], input: UserMessage, deps: LoopDeps): Promise<LoopOutcome> {
  let history: Message[] = [...prior, input];
  let newFrom = prior.length;
  let compacted = false;
  /** Sent after the transcript on the next call only: a nudge, or a cut-off draft with the request to go on. */
  let tail: Message[] = [];
  /** A reply cut off by the output token limit, waiting for its continuation; kept out of history until settled. */
  let draft: AssistantMessage | undefined;
  const toolsByName = new Map(deps.tools.map((tool) => [tool.name, tool]));
  const modelTools = toModelTools(deps.tools);
  const emptyReplies = new EmptyReplyPolicy();
  const continuations = new ContinuationCounter();

  const outcome = (stopReason: RunStopReason, text: string, error?: ClassifiedError): LoopOutcome =>
    ({ text, stopReason, history, newFrom, compacted, error });
  /** Puts a pending draft into the transcript (it is a valid turn) and returns its text for the person. */
  const settleDraft = (): string | undefined => {
    if (!draft) return undefined;
    history = [...history, draft];
    const text = assistantText(draft);
    draft = undefined;
    return text;
  };
  const cutOff = (stopReason: RunStopReason, cause: CutOffCause, text: string, detail?: string): LoopOutcome =>
    outcome(stopReason, withCutOffNote(text, cause, detail));
  /** A budget ran out: a pending cut-off answer is delivered as it is, otherwise the model summarises (grace.ts). */
  const outOfBudget = async (cause: GraceCause): Promise<LoopOutcome> => {
    const stopReason: RunStopReason = cause === "time" ? "WALL_TIME_EXCEEDED" : "MAX_ITERATIONS_EXCEEDED";
    const partial = settleDraft();
    if (partial !== undefined) return cutOff(stopReason, cause, partial);
    const grace = await runGraceCall(history, deps, cause);
    if (grace.message) history = [...history, grace.message];
    return outcome(stopReason, grace.text);
  };
  // The deadline aborts the same signal as a stop does; which one fired decides what the person is told.
  const stopped = async (): Promise<LoopOutcome> => {
    if (deps.deadline?.aborted && !deps.stopSignal.aborted) return outOfBudget("time");
    settleDraft();
    return outcome("ABORT", "Stopped.");
  };

  for (;;) {
    if (deps.signal.aborted) return stopped();
    if (deps.budget.wallTimeExceeded()) return outOfBudget("time");
    if (deps.budget.stepsExhausted()) return outOfBudget("steps");

    const step = deps.budget.consumeStep();
    deps.metrics?.iterations.inc();
    const repaired = repairHistory(history, deps.now);
    if (repaired.notes.length > 0) {
      deps.logger.info("history repaired before model call", { repairs: repaired.notes.map((n) => n.kind) });
      notifyStatus(deps, { kind: "history_repair", message: `Repaired ${repaired.notes.length} protocol problem(s) in the transcript.`, details: { notes: repaired.notes } });
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

    const sentTail = tail;
    // A re-executed run takes the replies its earlier attempt got (already streamed then) instead of asking again.
    const recorded = deps.checkpoints?.recordedStep?.(step);
    const call: RecoveredCall = recorded
      ? { ok: true, message: recorded, messages: history, compacted: false }
      : await callWithRecovery(
        deps.state,
        history,
        (messages) => modelContext(deps.compressor?.requestView?.(messages) ?? messages, { systemPrompt: deps.systemPrompt, tools: modelTools, input, ephemeralContext: deps.ephemeralContext, tail: sentTail }),
        { ...deps, step, onAttempt: (message, binding) => recordModelAttempt(deps, message, binding) },
      );
    tail = [];
    if (recorded) deps.logger.info("model reply of this step replayed from the run's earlier attempt", { step });
    else if (call.ok) await recordStep(deps, step, call.message);
    if (!call.ok && call.code === "ABORT") return stopped();
    if (call.compacted) {
      history = call.messages;
      newFrom = 0;
      compacted = true;
    }
    if (!call.ok) {
      const partial = settleDraft();
      if (partial !== undefined) return { ...cutOff(call.code, "error", partial, call.error.userMessage), error: call.error };
      return outcome(call.code, call.error.userMessage, call.error);
    }

    const reply = repairToolCallArguments(call.message, deps.logger);
    const stepText = assistantText(reply);
    const message = joinContinuation(draft, reply);
    draft = undefined;
    const toolCalls = message.content.filter((block): block is ToolCall => block.type === "toolCall");
    const text = assistantText(message);

    if (isCutOff(reply)) {
      const more = continuations.tryContinue();
      deps.logger.warn("model reply cut off by the output token limit", { step, continuation: continuations.used, toolCalls: toolCalls.length, continuing: more });
      if (toolCalls.length > 0) {
        // Arguments cut mid-way are not the call the model meant; running them could do harm.
        history = [...history, message, ...cutOffCallResults(toolCalls, deps.now())];
      } else if (more) {
        draft = message;
        tail = continuationTail(message, deps.now());
      } else {
        history = [...history, message];
      }
      await reportStep(deps, step, stepText, [], reply);
      if (!more) return cutOff("OUTPUT_TRUNCATED", "length", text);
      notifyStatus(deps, { kind: "continuation", message: "The reply hit the output token limit; asking the model to continue.", details: { continuation: continuations.used, cutOffToolCalls: toolCalls.length } });
      continue;
    }
    continuations.reset();

    if (toolCalls.length === 0 && text.length === 0) {
      notifyStatus(deps, { kind: "empty_response", message: "The model returned an empty reply; asking again." });
      deps.logger.warn("empty model reply", { step, stopReason: message.stopReason });
      const decision = emptyReplies.onEmpty(!deps.budget.stepsExhausted());
      if (decision.kind === "give_up") return outcome(decision.stopReason, decision.text);
      if (decision.nudge) tail = [{ role: "user", content: decision.nudge, timestamp: deps.now() }];
      continue;
    }
    emptyReplies.onReply();
    history = [...history, message];
    if (toolCalls.length === 0) {
      await reportStep(deps, step, stepText, [], reply);
      return outcome("completed", text);
    }

    const results = await runStepTools(toolCalls, step, toolsByName, deps);
    history = [...history, ...results];
    await reportStep(deps, step, stepText, toolCalls, reply);
  }
}

/** Saved before the step's tools run, so a crash from here on replays this reply and its finished calls. */
async function recordStep(deps: LoopDeps, step: number, message: AssistantMessage): Promise<void> {
  try {
    await deps.checkpoints?.recordStep?.(step, message);
  } catch (error) {
    // As with tool checkpoints, the answer matters more than crash safety.
    deps.logger.error("model reply not saved; a re-execution of this run would ask the model again", { step, error });
  }
}
