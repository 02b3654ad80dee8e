import type { Message } from "@mariozechner/pi-ai";
import type { HermesAgentResult } from "../loop/result.js";
import { StreamingContextScrubber } from "./stream-scrubber.js";

/** What the agent loop needs from the memory system (MemoryManager implements it). */
export interface AgentMemory {
  buildMemoryContextBlock(): string;
  prefetchAll(): Promise<string>;
  syncAll(messages: readonly Message[]): Promise<void>;
  onTurnStart(turn: number): void;
  onTurnEnd(result: HermesAgentResult): void;
  /** The messages about to be summarised away, before compression writes the summary. */
  onPreCompress(messages: readonly Message[]): void;
  sanitizeContext(text: string): string;
}

/** Removes `<memory-context>` spans from a complete text, the same way the stream scrubber does for deltas. */
export function scrubMemoryFences(text: string): string {
  const scrubber = new StreamingContextScrubber();
  return scrubber.feed(text) + scrubber.flush();
}

/** Wraps a text-delta observer so fenced memory never reaches the person, even when a tag is split across deltas. */
export function scrubbedDeltas(
  onTextDelta: ((delta: string, info: { step: number }) => void) | undefined,
): { onTextDelta: ((delta: string, info: { step: number }) => void) | undefined; flush: (step: number) => void } {
  if (!onTextDelta) return { onTextDelta: undefined, flush: () => {} };
  const scrubber = new StreamingContextScrubber();
  return {
    onTextDelta: (delta, info) => {
      const clean = scrubber.feed(delta);
      if (clean.length > 0) onTextDelta(clean, info);
    },
    flush: (step) => {
      const rest = scrubber.flush();
      if (rest.length > 0) onTextDelta(rest, { step });
    },
  };
}
