import type { AssistantMessage, Message, UserMessage } from "@mariozechner/pi-ai";
import { repairHistory } from "../history/repair.js";
import { HERMES_ATTRIBUTES } from "../observability/tracer-names.js";
import { toModelTools } from "../tools/registry.js";
import type { LoopDeps } from "./loop-deps.js";
import { modelContext } from "./model-context.js";
import { callWithRecovery } from "./resilient-call.js";
import { assistantText } from "./result.js";
import { recordModelAttempt } from "./run-metrics.js";

const GRACE_PROMPT =
  "[You have used all the steps allowed for this request, so you cannot call tools any more: any tool call you make " +
  "now is ignored. Reply to the user in plain text: summarise what you did, what you found, and what is still left to do.]";

/**
 * When the step budget runs out the model gets one last call to summarise (seed 004 "grace call"). If that fails too,
 * a static message stands in, so the user always hears why the run stopped.
 *
 * The call declares the same tools as every step and says in words that calling them is over. Sending no tools is
 * not an option: Anthropic's Messages API rejects a request whose transcript holds tool_use/tool_result blocks but
 * declares no tools, and some OpenAI-compatible servers do the same with tool messages. Rewriting the earlier tool
 * blocks as text would work everywhere too, but it changes the transcript (signed thinking blocks next to tool calls
 * no longer verify on Anthropic) and throws away the cached prompt prefix; the same tools and messages keep both, on
 * openai-completions, openai-responses and anthropic-messages alike. Tool calls in the answer are dropped.
 */
export async function runGraceCall(
  history: readonly Message[],
  deps: LoopDeps,
): Promise<{ text: string; message?: AssistantMessage }> {
  const limit = deps.budget.limits.maxSteps;
  const modelTools = toModelTools(deps.tools);
  const messages = repairHistory(history, deps.now).messages;
  const graceRequest: UserMessage = { role: "user", content: GRACE_PROMPT, timestamp: deps.now() };
  const call = await callWithRecovery(deps.state, messages, (transcript) => modelContext(transcript, {
    systemPrompt: deps.systemPrompt,
    tools: modelTools,
    // No recalled memory is placed for the summary, so the anchor for it is irrelevant.
    input: graceRequest,
    tail: [graceRequest],
  }), {
    ...deps,
    // A compacted transcript could not be handed back to the loop from here; an overflow ends in the static message.
    compress: undefined,
    step: deps.budget.steps + 1,
    spanAttributes: { [HERMES_ATTRIBUTES.grace]: true },
    onAttempt: (message, binding) => recordModelAttempt(deps, message, binding),
  });
  const text = call.ok ? assistantText(call.message) : "";
  if (call.ok && text.length > 0) {
    // Only the text is kept: tool calls in a reply that was told not to call tools would be left unanswered.
    return { text, message: { ...call.message, content: [{ type: "text", text }] } };
  }
  const why = call.ok ? "the model's reply had no text" : call.code === "ABORT" ? "the run was stopped" : call.error.message.slice(0, 200);
  deps.logger.warn("grace summary failed", { reason: call.ok ? "empty_reply" : call.code, ...(call.ok || call.code === "ABORT" ? {} : { errorClass: call.error.errorClass }) });
  return {
    text: `I stopped after reaching the limit of ${limit} steps for one request and could not write a summary (${why}). Ask me to continue if you want me to keep going.`,
  };
}
