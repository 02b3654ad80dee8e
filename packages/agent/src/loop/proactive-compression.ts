import type { Message } from "@mariozechner/pi-ai";
import type { ContextCompressor } from "../context/compressor.js";
import { markFailed, startChildSpan, withActiveScope } from "../observability/tracer.js";
import { SPAN_NAMES } from "../observability/tracer-names.js";
import { notifyStatus } from "./callbacks.js";
import type { LoopDeps } from "./loop-deps.js";

/** Compresses before a model call when the transcript nears the context window; undefined when nothing came of it. */
export async function compressProactively(
  compressor: NonNullable<LoopDeps["compressor"]>,
  history: Message[],
  deps: LoopDeps,
): Promise<Message[] | undefined> {
  notifyStatus(deps, { kind: "compression", message: "The conversation is getting long; compressing older messages." });
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
