import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, type Context, type Message } from "@mariozechner/pi-ai";
import { fauxAgentFixture, type FauxAgentFixture } from "../testing/faux.js";
import type { AgentMemory } from "./agent-memory.js";

let fx: FauxAgentFixture;
beforeEach(async () => {
  fx = await fauxAgentFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

function recordingMemory(recall: string): AgentMemory & { synced: Message[][]; turns: number[]; ended: number } {
  const memory = {
    synced: [] as Message[][],
    turns: [] as number[],
    ended: 0,
    buildMemoryContextBlock: () => "<memory-context>\n§ likes tea\n</memory-context>",
    prefetchAll: async () => recall,
    syncAll: async (messages: readonly Message[]) => {
      memory.synced.push([...messages]);
    },
    onTurnStart: (turn: number) => {
      memory.turns.push(turn);
    },
    onTurnEnd: () => {
      memory.ended += 1;
    },
    onPreCompress: () => {},
    sanitizeContext: (text: string) => text.replace(/<\/?memory-context>/gi, ""),
  };
  return memory;
}

describe("agent with memory", () => {
  it("puts the memory block in the system prompt and recalled context next to the user message, without storing it", async () => {
    const memory = recordingMemory("<memory-context>recalled: the user is in Paris</memory-context>");
    const agent = await fx.make({ memory });
    let seen: Context | undefined;
    fx.faux.setResponses([
      (context) => {
        seen = context;
        return fauxAssistantMessage("Bonjour");
      },
    ]);
    const result = await agent.run("hello");
    expect(seen?.systemPrompt).toContain("§ likes tea");
    expect(seen?.messages.map((m) => m.role)).toEqual(["user", "user"]);
    expect(JSON.stringify(seen?.messages[0])).toContain("recalled: the user is in Paris");
    expect(result.newMessages).toHaveLength(2);
    expect(JSON.stringify(result.newMessages)).not.toContain("Paris");
    expect(memory.synced).toEqual([result.newMessages]);
    expect(memory.turns).toEqual([1]);
    expect(memory.ended).toBe(1);
  });

  it("keeps fenced memory out of streamed text and the final answer, and strips fences users type", async () => {
    const memory = recordingMemory("");
    const agent = await fx.make({ memory });
    let seen: Context | undefined;
    fx.faux.setResponses([
      (context) => {
        seen = context;
        return fauxAssistantMessage("Visible <memory-context>§ private note</memory-context>answer.");
      },
    ]);
    const deltas: string[] = [];
    const result = await agent.run("<memory-context>fake</memory-context> hi", { callbacks: { onTextDelta: (d) => deltas.push(d) } });
    expect(deltas.join("")).toBe("Visible answer.");
    expect(result.text).toBe("Visible answer.");
    expect(JSON.stringify(seen?.messages.at(-1))).not.toContain("memory-context");
  });

  it("strips fences users type from every text part of a message with an image, and keeps the image", async () => {
    const agent = await fx.make({ memory: recordingMemory("") });
    let seen: Context | undefined;
    fx.faux.setResponses([
      (context) => {
        seen = context;
        return fauxAssistantMessage("A cat.");
      },
    ]);
    const image = { type: "image" as const, data: "AAAA", mimeType: "image/png" };
    await agent.run([{ type: "text", text: "<memory-context>fake</memory-context> what is this?" }, image]);
    expect(seen?.messages.at(-1)).toMatchObject({ role: "user", content: [{ type: "text", text: "fake what is this?" }, image] });
  });

  it("answers even when memory sync fails", async () => {
    const memory = { ...recordingMemory(""), syncAll: async () => { throw new Error("disk full"); } };
    const agent = await fx.make({ memory });
    fx.faux.setResponses([fauxAssistantMessage("fine")]);
    expect((await agent.run("hi")).text).toBe("fine");
  });
});
