import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall, type ToolResultMessage } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { fauxAgentFixture, registryWith, type FauxAgentFixture } from "../testing/faux.js";
import type { ToolEndEvent, ToolStartEvent } from "../loop/callbacks.js";
import { argumentsHash, replayingCheckpoints, type CheckpointedCall, type StoredToolCheckpoint } from "./checkpoints.js";
import { defineTool } from "./types.js";

const call = (overrides: Partial<CheckpointedCall> = {}): CheckpointedCall => ({
  step: 1,
  position: 0,
  toolCallId: "call_a",
  toolName: "terminal",
  arguments: { command: "echo hi >> log.txt" },
  ...overrides,
});

const saved = (overrides: Partial<StoredToolCheckpoint> = {}): StoredToolCheckpoint => ({
  step: 1,
  position: 0,
  toolCallId: "call_a",
  toolName: "terminal",
  argumentsHash: argumentsHash("terminal", { command: "echo hi >> log.txt" }),
  status: "ok",
  result: { content: "exit 0" },
  durationMs: 5,
  ...overrides,
});

const noPersist = async (): Promise<void> => {};

describe("replayingCheckpoints (matching a new attempt's calls to saved ones)", () => {
  it("hashes arguments canonically: key order does not matter, values do", () => {
    expect(argumentsHash("t", { a: 1, b: [2, { c: 3, d: 4 }] })).toBe(argumentsHash("t", { b: [2, { d: 4, c: 3 }], a: 1 }));
    expect(argumentsHash("t", { a: 1 })).not.toBe(argumentsHash("t", { a: 2 }));
    expect(argumentsHash("t", { a: 1 })).not.toBe(argumentsHash("u", { a: 1 }));
  });

  it("replays by call id when the id, tool and arguments are the same, even at another step", () => {
    const checkpoints = replayingCheckpoints([saved({ step: 3, position: 2 })], noPersist);
    expect(checkpoints.recorded(call())).toEqual({ status: "ok", result: { content: "exit 0" }, durationMs: 5 });
  });

  it("replays by step and position when the model made a new id for the same call", () => {
    const checkpoints = replayingCheckpoints([saved({ position: 1 })], noPersist);
    expect(checkpoints.recorded(call({ toolCallId: "call_new", position: 0 }))).toBeUndefined();
    expect(checkpoints.recorded(call({ toolCallId: "call_new", position: 1 }))).toMatchObject({ status: "ok" });
  });

  it("never replays a call whose tool or arguments differ, whatever its id or place", () => {
    const checkpoints = replayingCheckpoints([saved()], noPersist);
    expect(checkpoints.recorded(call({ arguments: { command: "echo other >> log.txt" } }))).toBeUndefined();
    expect(checkpoints.recorded(call({ toolName: "write_file" }))).toBeUndefined();
  });

  it("replays each saved outcome once, in the order saved, so a command run twice on purpose replays twice", () => {
    const checkpoints = replayingCheckpoints([saved({ result: { content: "first" } }), saved({ step: 2, result: { content: "second" } })], noPersist);
    expect(checkpoints.recorded(call())?.result.content).toBe("first");
    expect(checkpoints.recorded(call({ step: 2 }))?.result.content).toBe("second");
    expect(checkpoints.recorded(call({ step: 3 }))).toBeUndefined();
  });

  it("saves new outcomes with the argument hash and never replays them within the same attempt", async () => {
    const persisted: StoredToolCheckpoint[] = [];
    const checkpoints = replayingCheckpoints([], async (checkpoint) => void persisted.push(checkpoint));
    await checkpoints.record(call(), { status: "error", result: { content: "boom", isError: true }, durationMs: 7 });
    expect(persisted).toEqual([saved({ status: "error", result: { content: "boom", isError: true }, durationMs: 7 })]);
    expect(checkpoints.recorded(call())).toBeUndefined();
  });

  it("ignores saved rows with a status it does not replay", () => {
    expect(replayingCheckpoints([saved({ status: "aborted" })], noPersist).recorded(call())).toBeUndefined();
  });
});

let fx: FauxAgentFixture;
beforeEach(async () => {
  fx = await fauxAgentFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

describe("executor replay through a run (faux provider)", () => {
  it("records each finished call before the next model call and replays it in a re-executed run instead of running it again", async () => {
    const effects: string[] = [];
    const appendTool = defineTool({
      name: "append",
      description: "appends a line (a side effect)",
      parameters: Type.Object({ line: Type.String() }),
      concurrency: "never-parallel",
      handler: async (args) => {
        effects.push(args.line);
        return { content: `appended ${args.line} (#${effects.length})` };
      },
    });
    const store: StoredToolCheckpoint[] = [];
    const persistedBeforeModelCall: number[] = [];
    const agent = await fx.make({ tools: registryWith(appendTool) });

    // Attempt 1: the tool runs and is saved; then the run "crashes" (its result is never completed).
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("append", { line: "once" }, { id: "first-id" })], { stopReason: "toolUse" }),
      () => {
        persistedBeforeModelCall.push(store.length);
        return fauxAssistantMessage("lost in the crash");
      },
    ]);
    await agent.run("append a line", { checkpoints: replayingCheckpoints([], async (c) => void store.push(c)) });
    expect(effects).toEqual(["once"]);
    expect(persistedBeforeModelCall).toEqual([1]);
    expect(store).toMatchObject([{ step: 1, position: 0, toolCallId: "first-id", toolName: "append", status: "ok", result: { content: "appended once (#1)" } }]);

    // Attempt 2: the model asks again with a new call id; the saved result is replayed and the tool does not run.
    const starts: ToolStartEvent[] = [];
    const ends: ToolEndEvent[] = [];
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("append", { line: "once" }, { id: "second-id" })], { stopReason: "toolUse" }),
      fauxAssistantMessage("Appended it."),
    ]);
    const persistedAgain: StoredToolCheckpoint[] = [];
    const result = await agent.run("append a line", {
      checkpoints: replayingCheckpoints([...store], async (c) => void persistedAgain.push(c)),
      callbacks: { onToolStart: (event) => void starts.push(event), onToolEnd: (event) => void ends.push(event) },
    });
    expect(effects).toEqual(["once"]);
    expect(result.text).toBe("Appended it.");
    const replayed = result.newMessages.filter((m): m is ToolResultMessage => m.role === "toolResult");
    expect(replayed).toMatchObject([{ toolCallId: "second-id", toolName: "append", isError: false, content: [{ type: "text", text: "appended once (#1)" }] }]);
    expect(starts).toEqual([]);
    expect(ends).toMatchObject([{ toolCallId: "second-id", toolName: "append", status: "ok", replayed: true }]);
    // A replayed call is not saved a second time.
    expect(persistedAgain).toEqual([]);
  });

  it("runs the call again when the model asks for something else, and keeps going when saving fails", async () => {
    const effects: string[] = [];
    const appendTool = defineTool({
      name: "append",
      description: "appends a line",
      parameters: Type.Object({ line: Type.String() }),
      concurrency: "never-parallel",
      handler: async (args) => {
        effects.push(args.line);
        return { content: `appended ${args.line}` };
      },
    });
    const agent = await fx.make({ tools: registryWith(appendTool) });
    const earlier = [saved({ toolName: "append", toolCallId: "x", argumentsHash: argumentsHash("append", { line: "old" }), result: { content: "appended old" } })];
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("append", { line: "new" })], { stopReason: "toolUse" }),
      fauxAssistantMessage("Done."),
    ]);
    const result = await agent.run("go", {
      checkpoints: replayingCheckpoints(earlier, async () => {
        throw new Error("database is locked");
      }),
    });
    expect(effects).toEqual(["new"]);
    expect(result.text).toBe("Done.");
  });
});
