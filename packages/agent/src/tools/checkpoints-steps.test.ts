import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall, type AssistantMessage, type Context, type ToolResultMessage } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { fauxAgentFixture, registryWith, type FauxAgentFixture } from "../testing/faux.js";
import { replayingCheckpoints, type StoredRunStep, type StoredToolCheckpoint } from "./checkpoints.js";
import { recordedAssistantMessage } from "./recorded-step.js";
import { defineTool } from "./types.js";

let fx: FauxAgentFixture;
beforeEach(async () => {
  fx = await fauxAgentFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

function appendFixture(): { effects: string[]; tool: ReturnType<typeof defineTool> } {
  const effects: string[] = [];
  const tool = defineTool({
    name: "append",
    description: "appends a line (a side effect)",
    parameters: Type.Object({ line: Type.String() }),
    concurrency: "never-parallel",
    handler: async (args) => {
      effects.push(args.line);
      return { content: `appended ${args.line} (#${effects.length})` };
    },
  });
  return { effects, tool };
}

/** One attempt's durable state, as the store would keep it between attempts of a run. */
interface Saved {
  calls: StoredToolCheckpoint[];
  steps: StoredRunStep[];
}

const checkpointsOver = (saved: Saved) =>
  replayingCheckpoints([...saved.calls], async (c) => void saved.calls.push(c), {
    saved: [...saved.steps],
    persist: async (step) => {
      saved.steps = [...saved.steps.filter((s) => s.step < step.step), step];
    },
  });

const toolResults = (messages: readonly { role: string }[]): ToolResultMessage[] =>
  messages.filter((m): m is ToolResultMessage => m.role === "toolResult");

describe("recorded steps replay a re-executed run's model replies (faux provider)", () => {
  it("replays the recorded reply and its results even when the model would now answer differently; the tool runs once", async () => {
    const { effects, tool } = appendFixture();
    const agent = await fx.make({ tools: registryWith(tool) });
    const saved: Saved = { calls: [], steps: [] };
    let modelCalls = 0;
    const counted = (message: AssistantMessage) => () => {
      modelCalls += 1;
      return message;
    };

    // Attempt 1: step 1's reply and its call are saved, then the run "crashes" (its result is never completed).
    fx.faux.setResponses([
      counted(fauxAssistantMessage([fauxToolCall("append", { line: "once" }, { id: "first-id" })], { stopReason: "toolUse" })),
      counted(fauxAssistantMessage("lost in the crash")),
    ]);
    await agent.run("append a line", { checkpoints: checkpointsOver(saved) });
    expect(effects).toEqual(["once"]);
    expect(saved.steps.map((s) => s.step)).toEqual([1, 2]);
    saved.steps = saved.steps.filter((s) => s.step === 1);

    // Attempt 2: were the model asked for step 1, it would phrase the call differently. It is asked for step 2 only.
    modelCalls = 0;
    const model = (context: Context): AssistantMessage => {
      modelCalls += 1;
      return context.messages.some((m) => m.role === "toolResult")
        ? fauxAssistantMessage("Appended it.")
        : fauxAssistantMessage([fauxToolCall("append", { line: "ONCE, reworded" }, { id: "other-id" })], { stopReason: "toolUse" });
    };
    fx.faux.setResponses([model, model]);
    const result = await agent.run("append a line", { checkpoints: checkpointsOver(saved) });
    expect(result.text).toBe("Appended it.");
    expect(effects).toEqual(["once"]);
    expect(modelCalls).toBe(1);
    expect(toolResults(result.newMessages)).toMatchObject([{ toolCallId: "first-id", content: [{ type: "text", text: "appended once (#1)" }] }]);
    expect(saved.calls).toHaveLength(1);
  });

  it("runs again only the calls of a recorded step that have no recorded result (the crash hit mid-tool)", async () => {
    const { effects, tool } = appendFixture();
    const agent = await fx.make({ tools: registryWith(tool) });
    const saved: Saved = { calls: [], steps: [] };
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("append", { line: "a" }, { id: "id-a" }), fauxToolCall("append", { line: "b" }, { id: "id-b" })], { stopReason: "toolUse" }),
      fauxAssistantMessage("lost in the crash"),
    ]);
    await agent.run("append two lines", { checkpoints: checkpointsOver(saved) });
    expect(effects).toEqual(["a", "b"]);
    // The crash came after "a" finished and while "b" ran: b's result was never saved.
    saved.calls = saved.calls.filter((c) => c.toolCallId === "id-a");
    saved.steps = saved.steps.filter((s) => s.step === 1);

    fx.faux.setResponses([fauxAssistantMessage("Both appended.")]);
    const result = await agent.run("append two lines", { checkpoints: checkpointsOver(saved) });
    expect(result.text).toBe("Both appended.");
    expect(effects).toEqual(["a", "b", "b"]);
    expect(toolResults(result.newMessages).map((m) => m.toolCallId)).toEqual(["id-a", "id-b"]);
  });

  it("asks the model when the recorded reply is malformed, and replays no later step after it", async () => {
    const { effects, tool } = appendFixture();
    const agent = await fx.make({ tools: registryWith(tool) });
    const later = fauxAssistantMessage([fauxToolCall("append", { line: "stale" }, { id: "stale-id" })], { stopReason: "toolUse" });
    const saved: Saved = { calls: [], steps: [{ step: 1, message: { role: "assistant", content: "not blocks" } }, { step: 2, message: later }] };
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("append", { line: "fresh" }, { id: "fresh-id" })], { stopReason: "toolUse" }),
      fauxAssistantMessage("Appended fresh."),
    ]);
    const result = await agent.run("append a line", { checkpoints: checkpointsOver(saved) });
    expect(result.text).toBe("Appended fresh.");
    expect(effects).toEqual(["fresh"]);
    expect(saved.steps.map((s) => s.step)).toEqual([1, 2]);
    expect(recordedAssistantMessage(saved.steps[0]?.message)?.content).toMatchObject([{ type: "toolCall", id: "fresh-id" }]);
  });
});

describe("recordedAssistantMessage", () => {
  it("accepts a saved assistant message and rejects anything else", () => {
    const message = fauxAssistantMessage([{ type: "text", text: "hi" }, fauxToolCall("append", { line: "x" })], { stopReason: "toolUse" });
    expect(recordedAssistantMessage(JSON.parse(JSON.stringify(message)))).toEqual(JSON.parse(JSON.stringify(message)));
    expect(recordedAssistantMessage(null)).toBeUndefined();
    expect(recordedAssistantMessage({ ...message, role: "user" })).toBeUndefined();
    expect(recordedAssistantMessage({ ...message, content: [{ type: "toolCall", id: "x", name: "append" }] })).toBeUndefined();
    expect(recordedAssistantMessage({ ...message, content: [{ type: "image" }] })).toBeUndefined();
  });
});
