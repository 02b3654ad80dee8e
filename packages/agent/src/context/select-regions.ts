import type { Message } from "@mariozechner/pi-ai";
import { readCompressionNote } from "./compression-note.js";
import { estimateMessageTokens } from "./token-estimate.js";

/** head = [0, headEnd), middle = [headEnd, tailStart), tail = [tailStart, length). */
export interface Regions {
  headEnd: number;
  tailStart: number;
}

export interface RegionOptions {
  /** Messages kept from the start: the task as first stated and the first reply. */
  protectHeadMessages: number;
  /** Recent messages are kept while they fit in this many tokens. */
  tailTokenBudget: number;
}

/**
 * A cut before `index` is safe when it does not separate tool results from the assistant message that called them:
 * results always follow their call, so only a cut right before a result is unsafe.
 */
export function isSafeBoundary(messages: readonly Message[], index: number): boolean {
  return index <= 0 || index >= messages.length || messages[index]?.role !== "toolResult";
}

/**
 * Phase 2 of seed 002 §6: protect the head and a token-budgeted tail, the rest is the middle. Boundaries that would
 * split a call from its results move so the whole group stays on the protected side.
 */
export function selectRegions(messages: readonly Message[], options: RegionOptions): Regions {
  const length = messages.length;
  let headEnd = Math.min(Math.max(0, options.protectHeadMessages), length);
  while (!isSafeBoundary(messages, headEnd)) headEnd += 1;
  // An older summary belongs in the middle, where the next summary absorbs it, never frozen in the head.
  const firstNote = messages.findIndex((message) => readCompressionNote(message) !== undefined);
  if (firstNote !== -1 && firstNote < headEnd) headEnd = firstNote;

  let tailStart = length;
  let used = 0;
  while (tailStart > headEnd) {
    const cost = estimateMessageTokens(messages[tailStart - 1] as Message);
    // The newest message is always kept, however large: the model has to see what it is answering.
    if (tailStart < length && used + cost > options.tailTokenBudget) break;
    used += cost;
    tailStart -= 1;
  }
  while (tailStart > headEnd && !isSafeBoundary(messages, tailStart)) tailStart -= 1;
  return { headEnd, tailStart: Math.max(tailStart, headEnd) };
}
