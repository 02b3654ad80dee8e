import { callModel, type ModelBinding } from "../loop/model-call.js";
import { assistantText } from "../loop/result.js";
import { DROPPED_MARKER, SUMMARY_MARKER } from "./compression-note.js";
import type { SummaryRequest } from "./summary-prompt.js";

export type SummaryOutcome =
  | { ok: true; summary: string; truncated: boolean }
  | { ok: false; reason: "error" | "empty" | "aborted"; detail?: string };

export interface SummarizeOptions {
  signal: AbortSignal;
  sessionId?: string;
  maxTokens: number;
  timeoutMs?: number;
  now: () => number;
}

/** A model that copies our marker into its answer would make the note start with it twice. */
function stripMarkers(text: string): string {
  let out = text.trim();
  for (const marker of [SUMMARY_MARKER, DROPPED_MARKER]) {
    if (out.startsWith(marker)) out = out.slice(marker.length).trim();
  }
  return out;
}

/** Phase 3: one model call. Failures come back as values so the compressor can fall back to dropping the middle. */
export async function summarize(binding: ModelBinding, request: SummaryRequest, options: SummarizeOptions): Promise<SummaryOutcome> {
  const { message } = await callModel(
    { ...binding, maxTokens: options.maxTokens },
    { systemPrompt: request.systemPrompt, messages: [{ role: "user", content: request.prompt, timestamp: options.now() }] },
    { signal: options.signal, sessionId: options.sessionId, timeoutMs: options.timeoutMs },
  );
  if (message.stopReason === "aborted") return { ok: false, reason: "aborted", detail: message.errorMessage };
  if (message.stopReason === "error") return { ok: false, reason: "error", detail: message.errorMessage };
  const summary = stripMarkers(assistantText(message));
  if (summary.length === 0) return { ok: false, reason: "empty" };
  return { ok: true, summary, truncated: message.stopReason === "length" };
}
