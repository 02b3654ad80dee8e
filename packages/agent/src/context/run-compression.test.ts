import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall, type Message } from "@mariozechner/pi-ai";
import type { AgentMemory } from "../memory/agent-memory.js";
import { fauxAgentFixture, recordingTool, registryWith, type FauxAgentFixture } from "../testing/faux.js";
import { readCompressionNote } from "./compression-note.js";
import { ContextCompressor } from "./compressor.js";
import { conversationBuilder } from "./conversation-fixture.js";

let fx: FauxAgentFixture;
beforeEach(async () => {
  fx = await fauxAgentFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

/** The memory of the run, recording what it was shown before each compression. */
function memoryRecordingPreCompress(): AgentMemory & { preCompress: (readonly Message[])[] } {
  const memory = {
    preCompress: [] as (readonly Message[])[],
    buildMemoryContextBlock: () => "",
    prefetchAll: async () => "",
    syncAll: async () => {},
    onTurnStart: () => {},
    onTurnEnd: () => {},
    onPreCompress: (messages: readonly Message[]) => {
      memory.preCompress.push(messages);
    },
    sanitizeContext: (text: string) => text,
  };
  return memory;
}

/** About 1k tokens a pair: 30 pairs are over half of a 16k window and far below half of 200k. */
function longHistory(pairs = 30): Message[] {
  const c = conversationBuilder();
  return Array.from({ length: pairs }, (_, i) => [c.user(`question ${i}: ${"words ".repeat(330)}`), c.reply(`answer ${i}: ${"detail ".repeat(280)}`)]).flat();
}

const SUMMARY = "## Active task\nkeep going\n## Goal\nanswer the questions";

describe("compression sized for the run's model", () => {
  const modelWith = (contextWindow: number) => ({ model: { ...fx.faux.getModel(), contextWindow }, apiKey: "test" });
  // Configured for the default model: a custom endpoint with HERMES_CONTEXT_WINDOW=16000.
  const conversationCompressor = (threshold?: number) => new ContextCompressor({ summarizer: modelWith(16_000), contextWindow: 16_000, threshold });

  it("does not compress a run on a /model override whose window is large, though the configured window would", async () => {
    const agent = await fx.make({ model: modelWith(200_000) });
    const memory = memoryRecordingPreCompress();
    fx.faux.setResponses([fauxAssistantMessage("plenty of room")]);
    const result = await agent.run("next question", { history: longHistory(), compressor: conversationCompressor(), memory });
    expect(result.text).toBe("plenty of room");
    expect(result.compacted).toBe(false);
    expect(memory.preCompress).toEqual([]);
  });

  it("compresses a run on the small model, after showing the run's memory the messages it summarises", async () => {
    const agent = await fx.make({ model: modelWith(16_000) });
    const memory = memoryRecordingPreCompress();
    const history = longHistory();
    fx.faux.setResponses([fauxAssistantMessage(SUMMARY), fauxAssistantMessage("answered after compression")]);
    const result = await agent.run("next question", { history, compressor: conversationCompressor(), memory });
    expect(result.text).toBe("answered after compression");
    expect(result.compacted).toBe(true);
    expect(memory.preCompress).toHaveLength(1);
    const middle = memory.preCompress[0] ?? [];
    expect(middle.length).toBeGreaterThan(10);
    for (const message of middle) expect(history).toContain(message);
    expect(result.history.some((m) => readCompressionNote(m)?.kind === "summary")).toBe(true);
  });

  it("tells the memory before an overflow compression too", async () => {
    // Proactive compression only at a full window, so the provider's overflow error comes first.
    const agent = await fx.make({ model: modelWith(16_000) });
    const memory = memoryRecordingPreCompress();
    fx.faux.setResponses([
      fauxAssistantMessage([], { stopReason: "error", errorMessage: "400 This model's maximum context length is 8192 tokens. Please reduce the length of the messages." }),
      fauxAssistantMessage(SUMMARY),
      fauxAssistantMessage("fits now"),
    ]);
    const result = await agent.run("next question", { history: longHistory(12), compressor: conversationCompressor(1), memory });
    expect(result.text).toBe("fits now");
    expect(result.compacted).toBe(true);
    expect(memory.preCompress).toHaveLength(1);
  });

  it("is sized for the fallback model once the run switched to it", async () => {
    const agent = await fx.make({
      model: modelWith(200_000),
      fallbackModel: modelWith(16_000),
      budget: { maxModelAttempts: 2 },
      tools: registryWith(recordingTool("lookup", "parallel-safe", [])),
    });
    const memory = memoryRecordingPreCompress();
    fx.faux.setResponses([
      fauxAssistantMessage([], { stopReason: "error", errorMessage: "503 overloaded" }),
      fauxAssistantMessage([], { stopReason: "error", errorMessage: "503 overloaded" }),
      // The fallback's first reply calls a tool; before the next call the transcript is measured against its 16k.
      fauxAssistantMessage([fauxToolCall("lookup", { path: "a" })], { stopReason: "toolUse" }),
      fauxAssistantMessage(SUMMARY),
      fauxAssistantMessage("answered by the fallback"),
    ]);
    const result = await agent.run("next question", { history: longHistory(), compressor: conversationCompressor(), memory });
    expect(result.text).toBe("answered by the fallback");
    expect(result.compacted).toBe(true);
    expect(memory.preCompress).toHaveLength(1);
  });
});
