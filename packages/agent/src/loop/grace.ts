import type { AssistantMessage, Message, UserMessage } from "@mariozechner/pi-ai";
import { repairHistory } from "../history/repair.js";
import { HERMES_ATTRIBUTES } from "../observability/tracer-names.js";
import { toModelTools } from "../tools/registry.js";
import { isCutOff, withCutOffNote } from "./continuation.js";
import type { LoopDeps } from "./loop-deps.js";
import { modelContext } from "./model-context.js";
import { callWithRecovery } from "./resilient-call.js";
import { assistantText } from "./result.js";
import { recordModelAttempt } from "./run-metrics.js";

/** Which budget ran out: the steps, or the wall time. */
export type GraceCause = "steps" | "time";

const NO_MORE_TOOLS =
  "so you cannot call tools any more: any tool call you make now is ignored. Reply to the user in plain text: " +
  "summarise what you did, what you found, and what is still left to do.";

const GRACE_PROMPTS: Record<GraceCause, string> = {
  steps: `[You have used all the steps allowed for this request, ${NO_MORE_TOOLS}]`,
  time: `[You have used all the time allowed for this request, ${NO_MORE_TOOLS} Keep it short.]`,
};

export interface GraceSummary {
  text: string;
  /** The summary as the model's turn, text only; absent when the static message stood in. */
  message?: AssistantMessage;
}

/**
 * When a budget runs out the model gets one last call to summarise (seed 004 "grace call"). If that fails too,
 * a static message stands in, so the user always hears why the run stopped.
 *
 * The call declares the same tools as every step and says in words that calling them is over. Sending no tools is
 * not an option: Anthropic's Messages API rejects a request whose transcript holds tool_use/tool_result blocks but
 * declares no tools, and some OpenAI-compatible servers do the same with tool messages. Rewriting the earlier tool
 * blocks as text would work everywhere too, but it changes the transcript (signed thinking blocks next to tool calls
 * no longer verify on Anthropic) and throws away the cached prompt prefix; the same tools and messages keep both, on
 * openai-completions, openai-responses and anthropic-messages alike. Tool calls in the answer are dropped.
 *
 * After the steps ran out the call still lives within the run's time budget. After the time ran out the run's signal
 * has already fired, so the call gets a deadline of its own (`BudgetTracker.timeGraceMs`) and only the caller's own
 * stop besides: a run overshoots its time budget by that much at most.
 */
export async function runGraceCall(history: readonly Message[], deps: LoopDeps, cause: GraceCause): Promise<GraceSummary> {
  const modelTools = toModelTools(deps.tools);
  const messages = repairHistory(history, deps.now).messages;
  const graceRequest: UserMessage = { role: "user", content: GRACE_PROMPTS[cause], timestamp: deps.now() };
  const graceTimeout = cause === "time" ? AbortSignal.timeout(deps.budget.timeGraceMs()) : undefined;
  const signal = graceTimeout ? AbortSignal.any([deps.stopSignal, graceTimeout]) : deps.signal;
  const call = await callWithRecovery(deps.state, messages, (transcript) => modelContext(deps.compressor?.requestView?.(transcript) ?? transcript, {
    systemPrompt: deps.systemPrompt,
    tools: modelTools,
    // No recalled memory is placed for the summary, so the anchor for it is irrelevant.
    input: graceRequest,
    tail: [graceRequest],
  }), {
    ...deps,
    signal,
    // A compacted transcript could not be handed back to the loop from here; an overflow ends in the static message.
    compress: undefined,
    step: deps.budget.steps + 1,
    spanAttributes: { [HERMES_ATTRIBUTES.grace]: true },
    onAttempt: (message, binding) => recordModelAttempt(deps, message, binding),
  });
  const text = call.ok ? assistantText(call.message) : "";
  if (call.ok && text.length > 0) {
    // Only the text is kept: tool calls in a reply that was told not to call tools would be left unanswered.
    const message: AssistantMessage = { ...call.message, content: [{ type: "text", text }] };
    // No step or time is left to continue a summary cut off by the output limit, so the person is told it is cut off.
    return { text: isCutOff(call.message) ? withCutOffNote(text, cause) : text, message };
  }
  const timedOut = graceTimeout?.aborted === true && !deps.stopSignal.aborted;
  const why = call.ok
    ? "the model's reply had no text"
    : call.code !== "ABORT"
      ? call.error.message.slice(0, 200)
      : timedOut
        ? `it took longer than ${duration(deps.budget.timeGraceMs())}`
        : cause === "steps" && deps.deadline?.aborted === true
          ? "no time was left"
          : "the run was stopped";
  const reason = call.ok ? "empty_reply" : timedOut ? "timeout" : call.code;
  deps.logger.warn("grace summary failed", { cause, reason, ...(call.ok || call.code === "ABORT" ? {} : { errorClass: call.error.errorClass }) });
  return { text: staticSummary(cause, deps, why) };
}

function staticSummary(cause: GraceCause, deps: LoopDeps, why: string): string {
  const after = `and could not write a summary (${why}). Ask me to continue if you want me to keep going.`;
  if (cause === "steps") return `I stopped after reaching the limit of ${deps.budget.limits.maxSteps} steps for one request ${after}`;
  return `I ran out of time for this request (limit ${duration(deps.budget.limits.maxWallTimeMs)}) before finishing ${after}`;
}

function duration(ms: number): string {
  if (ms >= 60_000) return `${Math.round(ms / 60_000)} min`;
  return ms >= 1_000 ? `${Math.round(ms / 1_000)} s` : `${ms} ms`;
}
