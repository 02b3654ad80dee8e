import type { AssistantMessage, Message } from "@mariozechner/pi-ai";
import { redactSecrets } from "../errors/redact.js";
import { repairHistory } from "../history/repair.js";
import { recordLlmCall } from "../observability/agent-metrics.js";
import type { LoopDeps } from "./run-loop.js";
import { callModel } from "./model-call.js";
import { assistantText } from "./result.js";
import { SpanKind } from "@opentelemetry/api";
import { markFailed, startChildSpan, withActiveScope } from "../observability/tracer.js";
import { HERMES_ATTRIBUTES, SPAN_NAMES } from "../observability/tracer-names.js";
import { chatAttributes, chatResultAttributes } from "./resilient-call.js";

const GRACE_PROMPT =
  "[You have used all the steps allowed for this request, so you cannot call tools any more. " +
  "Reply to the user now: summarise what you did, what you found, and what is still left to do.]";

/**
 * When the step budget runs out the model gets one last call, without tools, to summarise (seed 004 "grace call").
 * If that fails too, a static message stands in, so the user always hears why the run stopped.
 */
export async function runGraceCall(
  history: readonly Message[],
  deps: LoopDeps,
): Promise<{ text: string; message?: AssistantMessage }> {
  const limit = deps.budget.limits.maxSteps;
  const binding = deps.state.binding;
  const { span, scope } = startChildSpan(deps.spans, SPAN_NAMES.chat(binding.model.id), {
    kind: SpanKind.CLIENT,
    attributes: { ...chatAttributes(binding), [HERMES_ATTRIBUTES.grace]: true },
  });
  const messages = repairHistory(history, deps.now).messages;
  const { message } = await withActiveScope(scope, () => callModel(
    binding,
    { systemPrompt: deps.systemPrompt, messages: [...messages, { role: "user", content: GRACE_PROMPT, timestamp: deps.now() }] },
    { signal: deps.signal, sessionId: deps.sessionId, timeoutMs: deps.retry.requestTimeoutMs },
  ));
  span.setAttributes(chatResultAttributes(message));
  deps.cost.add(message.usage, { provider: deps.state.binding.model.provider, id: deps.state.binding.model.id });
  recordLlmCall(deps.metrics, deps.state.binding.model, message.usage);
  const text = message.stopReason === "error" || message.stopReason === "aborted" ? "" : assistantText(message);
  if (text.length > 0) {
    span.end();
    // Only the text is kept: tool calls in a reply that was told not to call tools would be left unanswered.
    return { text, message: { ...message, content: [{ type: "text", text }] } };
  }
  const reason = message.errorMessage ? ` (${redactSecrets(message.errorMessage.slice(0, 200), [deps.state.binding.apiKey ?? ""])})` : "";
  const failure = message.stopReason === "error" ? "api_error" : message.stopReason === "aborted" ? "aborted" : "empty_reply";
  markFailed(span, failure, message.errorMessage ? redactSecrets(message.errorMessage, [binding.apiKey ?? ""]) : undefined);
  span.end();
  deps.logger.warn("grace summary failed", { error: message.errorMessage, stopReason: message.stopReason });
  return {
    text: `I stopped after reaching the limit of ${limit} steps for one request and could not write a summary${reason}. Ask me to continue if you want me to keep going.`,
  };
}
