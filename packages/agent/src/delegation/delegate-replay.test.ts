import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startLlmServer, type LlmServer, type RecordedRequest, type ScriptedReply } from "../../../../test/fakes/llm-server.js";
import { HermesAgent } from "../agent.js";
import { resolveModel } from "../models/resolve.js";
import { argumentsHash, replayingCheckpoints, type CheckpointedCall, type StoredRunStep, type StoredToolCheckpoint } from "../tools/checkpoints.js";
import { ToolRegistry } from "../tools/registry.js";
import { defineTool } from "../tools/types.js";
import { delegatedTaskKey, subagentRunId } from "./subagent-identity.js";
import type { SubagentRun } from "./types.js";

let server: LlmServer;
let home: string;
let bumps: number;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-delegate-replay-"));
  bumps = 0;
});

afterEach(async () => {
  await server?.close();
  await rm(home, { recursive: true, force: true });
});

/** A tool whose side effect can be counted: every run of its handler bumps the counter. */
const counterTool = () =>
  defineTool({
    name: "bump_counter",
    description: "Adds to the counter and says its value.",
    parameters: Type.Object({ by: Type.Number() }),
    concurrency: "never-parallel",
    handler: async (args) => {
      bumps += args.by;
      return { content: `counter is ${bumps}` };
    },
  });

/** The store's tool_checkpoints and run_steps rows of one run, kept in memory. */
class MemoryCheckpointStore {
  rows: StoredToolCheckpoint[] = [];
  steps: StoredRunStep[] = [];
  onRow?: (store: MemoryCheckpointStore) => void;

  /** An attempt of the run over what is saved now, as run-checkpoints.ts makes it for a run taken up again. */
  attempt() {
    return replayingCheckpoints(
      [...this.rows],
      async (row) => {
        this.rows.push(row);
        this.onRow?.(this);
      },
      {
        saved: [...this.steps],
        persist: async (step) => {
          // As the store does: a step replaces itself and every later one.
          this.steps = [...this.steps.filter((s) => s.step < step.step), step];
        },
      },
    );
  }

  copy(): MemoryCheckpointStore {
    const copy = new MemoryCheckpointStore();
    copy.rows = structuredClone(this.rows);
    copy.steps = structuredClone(this.steps);
    return copy;
  }
}

const isSubagent = (request: RecordedRequest): boolean => JSON.stringify(request.messages).includes("You are a sub-agent");
const toolResultOf = (request: RecordedRequest): string | undefined => {
  const message = request.messages.find((m) => (m as { role?: string }).role === "tool") as { content?: unknown } | undefined;
  if (message === undefined) return undefined;
  return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
};

/** Two sub-agents that each bump the counter once (the same call) and report what it said. */
function script(request: RecordedRequest): ScriptedReply {
  if (isSubagent(request)) {
    const result = toolResultOf(request);
    return result === undefined ? { kind: "tools", calls: [{ name: "bump_counter", arguments: { by: 1 } }] } : { kind: "text", text: `saw: ${result}` };
  }
  const result = toolResultOf(request);
  if (result === undefined) {
    const tasks = [{ goal: "bump once", tools: ["bump_counter"] }, { goal: "bump too", tools: ["bump_counter"] }];
    return { kind: "tools", calls: [{ id: "delegate-1", name: "delegate_task", arguments: { tasks } }] };
  }
  return { kind: "text", text: `done: ${result}` };
}

async function workerAgent(lineage: SubagentRun[]): Promise<HermesAgent> {
  const resolved = resolveModel({ model: "scripted-model", baseUrl: server.baseUrl, apiKey: "sk-test-0123456789abcdef" });
  if (!resolved.ok) throw new Error(resolved.error);
  const tools = new ToolRegistry();
  tools.register(counterTool());
  return HermesAgent.create({
    model: resolved.binding,
    tools,
    stateDir: path.join(home, "state"),
    builtinTools: false,
    delegation: { maxSteps: 4, lineage: { record: async (run) => void lineage.push(run) } },
    sleep: async () => {},
    random: () => 0,
  });
}

const byGoal = (runs: readonly SubagentRun[]) => Object.fromEntries(runs.map((run) => [run.goal, run]));

describe("delegate_task replayed after a crash", () => {
  it("reuses each sub-agent's recorded tool result instead of running the tool again, and records the same lineage ids", async () => {
    server = await startLlmServer({ defaultReply: script });
    const store = new MemoryCheckpointStore();
    // The worker crashes once both sub-agents' counter calls are saved, before delegate_task returns.
    let atCrash: MemoryCheckpointStore | undefined;
    store.onRow = (current) => {
      if (current.rows.filter((row) => row.toolName === "bump_counter").length === 2) atCrash ??= current.copy();
    };
    const firstLineage: SubagentRun[] = [];
    const first = await (await workerAgent(firstLineage)).run("bump it twice", { sessionId: "session-r", checkpoints: store.attempt() });
    expect(first.stopReason).toBe("completed");
    expect(bumps).toBe(2);
    if (atCrash === undefined) throw new Error("the counter calls were not checkpointed");
    expect(atCrash.rows.map((row) => row.toolName)).toEqual(["bump_counter", "bump_counter"]);
    expect(atCrash.rows.every((row) => row.toolCallId.startsWith("scoped:"))).toBe(true);
    const requestsBefore = server.requests.length;

    // Another worker takes the run up again from what the store held at the crash.
    const replayLineage: SubagentRun[] = [];
    const replay = await (await workerAgent(replayLineage)).run("bump it twice", { sessionId: "session-r", checkpoints: atCrash.attempt() });
    expect(replay.stopReason).toBe("completed");
    expect(bumps).toBe(2);
    const firstRuns = byGoal(firstLineage);
    const replayRuns = byGoal(replayLineage);
    // Each sub-agent got its own recorded output back (the two calls are alike; neither took the other's).
    expect(new Set([firstRuns["bump once"]?.summary, firstRuns["bump too"]?.summary])).toEqual(new Set(["saw: counter is 1", "saw: counter is 2"]));
    expect(replayRuns["bump once"]?.summary).toBe(firstRuns["bump once"]?.summary);
    expect(replayRuns["bump too"]?.summary).toBe(firstRuns["bump too"]?.summary);
    expect(replay.text).toContain(`## Task 1: bump once\n${firstRuns["bump once"]?.summary}`);
    expect(replay.text).toContain(`## Task 2: bump too\n${firstRuns["bump too"]?.summary}`);
    // The lineage names the same sub-agents, so the store's record keeps one row each.
    expect(replayRuns["bump once"]?.id).toBe(firstRuns["bump once"]?.id);
    expect(replayRuns["bump too"]?.id).toBe(firstRuns["bump too"]?.id);
    expect(firstRuns["bump once"]?.id).not.toBe(firstRuns["bump too"]?.id);
    // The parent's step 1 was replayed; its final answer and the sub-agents' model calls were asked again.
    const replayRequests = server.requests.slice(requestsBefore);
    expect(replayRequests.filter(isSubagent)).toHaveLength(4);
    expect(replayRequests.filter((request) => !isSubagent(request))).toHaveLength(1);
    // The replay saved the delegate_task result it had lacked, and no second counter call.
    expect(atCrash.rows.filter((row) => row.toolName === "delegate_task" && !row.toolCallId.startsWith("scoped:"))).toHaveLength(1);
    expect(atCrash.rows.filter((row) => row.toolName === "bump_counter")).toHaveLength(2);
  });

  it("gives other sessions' sub-agents other lineage ids for the same call id", async () => {
    server = await startLlmServer({ defaultReply: script });
    const lineage: SubagentRun[] = [];
    const agent = await workerAgent(lineage);
    await agent.run("bump it twice", { sessionId: "session-a" });
    await agent.run("bump it twice", { sessionId: "session-b" });
    expect(new Set(lineage.map((run) => run.id)).size).toBe(4);
    expect(lineage.every((run) => run.parentToolCallId === "delegate-1")).toBe(true);
  });
});

describe("sub-agent identity", () => {
  it("names a task by its call, place and text, and gives a stopped attempt a lineage id of its own", () => {
    const task = { goal: "find alpha" };
    const key = delegatedTaskKey("delegate-1", 0, task);
    expect(delegatedTaskKey("delegate-1", 0, { goal: "find alpha" })).toBe(key);
    expect(new Set([key, delegatedTaskKey("delegate-1", 1, task), delegatedTaskKey("delegate-2", 0, task), delegatedTaskKey("delegate-1", 0, { goal: "find beta" })]).size).toBe(4);
    expect(subagentRunId("session-1", key, "done")).toBe(subagentRunId("session-1", key, "failed"));
    expect(subagentRunId("session-1", key, "stopped")).not.toBe(subagentRunId("session-1", key, "done"));
    expect(subagentRunId("session-1", key, "done")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe("scoped checkpoints", () => {
  const call = (overrides: Partial<CheckpointedCall> = {}): CheckpointedCall => ({
    step: 1,
    position: 0,
    toolCallId: "call_1",
    toolName: "terminal",
    arguments: { command: "touch x" },
    ...overrides,
  });
  const outcome = (content: string) => ({ status: "ok" as const, result: { content }, durationMs: 1 });

  it("keeps a scope's calls apart from the run's own and from other scopes', by id and by place", async () => {
    const rows: StoredToolCheckpoint[] = [];
    const persist = async (row: StoredToolCheckpoint): Promise<void> => void rows.push(row);
    const first = replayingCheckpoints([], persist);
    await first.record(call(), outcome("parent"));
    await first.scoped?.("task-a").record(call(), outcome("task a"));
    await first.scoped?.("task-b").record(call(), outcome("task b"));
    expect(rows.map((row) => row.toolCallId)).toEqual(["call_1", "scoped:task-a/call_1", "scoped:task-b/call_1"]);
    expect(rows[1]?.argumentsHash).toBe(argumentsHash("terminal", { command: "touch x" }));

    const replay = replayingCheckpoints(rows, persist);
    // A fresh id at the same place: matched by step and position, within its own scope only.
    expect(replay.scoped?.("task-b").recorded(call({ toolCallId: "call_9" }))?.result.content).toBe("task b");
    expect(replay.scoped?.("task-b").recorded(call({ toolCallId: "call_9" }))).toBeUndefined();
    expect(replay.scoped?.("task-c").recorded(call())).toBeUndefined();
    expect(replay.recorded(call({ toolCallId: "call_7" }))?.result.content).toBe("parent");
    expect(replay.recorded(call())).toBeUndefined();
    expect(replay.scoped?.("task-a").recorded(call())?.result.content).toBe("task a");
  });

  it("refuses a scope name that could not be told apart from a call id", () => {
    expect(() => replayingCheckpoints([], async () => {}).scoped?.("a/b")).toThrow(/invalid checkpoint scope/);
  });
});
