import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startLlmServer, type LlmServer, type RecordedRequest, type ScriptedReply } from "../../../../test/fakes/llm-server.js";
import { waitUntil } from "../../../../test/support/wait-until.js";
import { HermesAgent } from "../agent.js";
import type { HermesAgentConfig } from "../agent-config.js";
import type { ToolStartEvent } from "../loop/callbacks.js";
import { resolveModel } from "../models/resolve.js";
import { ToolRegistry } from "../tools/registry.js";
import { defineTool } from "../tools/types.js";
import type { DelegatedTask, SubagentRun } from "./types.js";

let server: LlmServer;
let home: string;
let lineage: SubagentRun[];

const USAGE = { prompt: 1_000, completion: 100 };

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-delegate-"));
  lineage = [];
});
afterEach(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
});

/** A stand-in for a tool the gateway registers, which sub-agents must not get. */
function stubTool(name: string) {
  return defineTool({ name, description: `stub ${name}`, parameters: Type.Object({}), concurrency: "parallel-safe", handler: async () => ({ content: "ok" }) });
}

async function delegatingAgent(config: Partial<HermesAgentConfig> = {}): Promise<HermesAgent> {
  const resolved = resolveModel({ model: "scripted-model", baseUrl: server.baseUrl, apiKey: "sk-test-0123456789abcdef", price: { input: 3, output: 15 } });
  if (!resolved.ok) throw new Error(resolved.error);
  const tools = new ToolRegistry();
  tools.register(stubTool("memory"));
  tools.register(stubTool("skill_manage"));
  return HermesAgent.create({
    model: resolved.binding,
    tools,
    stateDir: path.join(home, "state"),
    builtinTools: { enable: ["think", "list_directory"], workspaceRoot: path.join(home, "workspace") },
    contextDir: path.join(home, "workspace"),
    delegation: { maxSteps: 4, lineage: { record: async (run) => void lineage.push(run) } },
    sleep: async () => {},
    random: () => 0,
    ...config,
  });
}

const isSubagent = (request: RecordedRequest): boolean => JSON.stringify(request.messages).includes("You are a sub-agent");
const toolNames = (request: RecordedRequest | undefined): string[] =>
  ((request?.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
const hasToolResult = (request: RecordedRequest): boolean => request.messages.some((m) => (m as { role?: string }).role === "tool");

/** The parent delegates `tasks` first and answers once the results are back; sub-agents are answered by `subagent`. */
function script(tasks: DelegatedTask[], subagent: (request: RecordedRequest, text: string) => ScriptedReply) {
  return (request: RecordedRequest): ScriptedReply => {
    if (isSubagent(request)) return subagent(request, JSON.stringify(request.messages));
    if (!hasToolResult(request)) return { kind: "tools", calls: [{ id: "delegate-1", name: "delegate_task", arguments: { tasks } }], usage: USAGE };
    return { kind: "text", text: "Both looked into.", usage: USAGE };
  };
}

const delegationResult = (request: RecordedRequest | undefined): string => {
  const message = request?.messages.find((m) => (m as { role?: string }).role === "tool") as { content?: unknown } | undefined;
  return typeof message?.content === "string" ? message.content : JSON.stringify(message?.content);
};

describe("delegate_task", () => {
  it("runs two tasks in parallel, returns each summary, sums their usage into the run and records the lineage", async () => {
    server = await startLlmServer({
      defaultReply: script(
        [{ goal: "find alpha", context: "alpha lives in A" }, { goal: "find beta", tools: ["think", "memory", "no_such_tool"] }],
        (request, text) => {
          if (text.includes("Goal: find alpha")) {
            return hasToolResult(request) ? { kind: "text", text: "alpha is 1", usage: USAGE } : { kind: "tools", calls: [{ name: "think", arguments: { thought: "look in A" } }], usage: USAGE };
          }
          return { kind: "text", text: "beta is 2", usage: USAGE };
        },
      ),
    });
    const agent = await delegatingAgent();
    const result = await agent.run("look into alpha and beta", { sessionId: "session-1" });

    expect(result.stopReason).toBe("completed");
    expect(result.text).toBe("Both looked into.");
    const subRequests = server.requests.filter(isSubagent);
    expect(subRequests).toHaveLength(3);
    // In parallel: beta's sub-agent asked before alpha's sub-agent came back from its tool call.
    const alphaSecond = server.requests.findIndex((r) => isSubagent(r) && hasToolResult(r));
    const betaFirst = server.requests.findIndex((r) => JSON.stringify(r.messages).includes("Goal: find beta"));
    expect(betaFirst).toBeLessThan(alphaSecond);

    const parentTools = toolNames(server.requests[0]);
    expect(parentTools).toEqual(expect.arrayContaining(["delegate_task", "memory", "skill_manage", "think", "list_directory"]));
    const alphaTools = toolNames(subRequests.find((r) => JSON.stringify(r.messages).includes("Goal: find alpha")));
    expect(alphaTools.sort()).toEqual(["list_directory", "think"]);
    expect(toolNames(subRequests.find((r) => JSON.stringify(r.messages).includes("Goal: find beta")))).toEqual(["think"]);
    // A fresh context: the parent's conversation is not in it, the task's goal and context are.
    const alphaFirst = JSON.stringify(subRequests.find((r) => JSON.stringify(r.messages).includes("Goal: find alpha"))?.messages);
    expect(alphaFirst).toContain("alpha lives in A");
    expect(alphaFirst).not.toContain("look into alpha and beta");

    const returned = delegationResult(server.requests.at(-1));
    expect(returned).toContain("## Task 1: find alpha\nalpha is 1");
    expect(returned).toContain("## Task 2: find beta\nbeta is 2");
    expect(returned).toContain("ignored: memory, no_such_tool");

    // Two parent calls and three sub-agent calls, each reporting USAGE.
    expect(result.usage.input).toBe(5 * USAGE.prompt);
    expect(result.usage.output).toBe(5 * USAGE.completion);
    expect(result.usage.costUsd).toBeCloseTo((5 * (USAGE.prompt * 3 + USAGE.completion * 15)) / 1_000_000, 10);

    expect(lineage.map((run) => [run.goal, run.status, run.summary, run.steps]).sort()).toEqual([
      ["find alpha", "done", "alpha is 1", 2],
      ["find beta", "done", "beta is 2", 1],
    ]);
    for (const run of lineage) {
      expect(run).toMatchObject({ parentSessionId: "session-1", parentToolCallId: "delegate-1" });
      expect(run.endedAt).toBeGreaterThanOrEqual(run.startedAt);
    }
    expect(lineage.find((run) => run.goal === "find alpha")).toMatchObject({ inputTokens: 2 * USAGE.prompt, outputTokens: 2 * USAGE.completion });
  });

  it("returns a task whose provider fails as that task's result while the other task and the run go on", async () => {
    server = await startLlmServer({
      defaultReply: script([{ goal: "works" }, { goal: "breaks" }], (_request, text) =>
        text.includes("Goal: breaks")
          ? { kind: "error", status: 400, body: { error: { message: "this request is malformed", type: "invalid_request_error" } } }
          : { kind: "text", text: "it worked", usage: USAGE }),
    });
    const agent = await delegatingAgent();
    const result = await agent.run("do both", { sessionId: "session-2" });

    expect(result.stopReason).toBe("completed");
    const returned = delegationResult(server.requests.at(-1));
    expect(returned).toContain("## Task 1: works\nit worked");
    expect(returned).toMatch(/## Task 2: breaks\nFailed: .+/);
    expect(lineage.map((run) => [run.goal, run.status]).sort()).toEqual([["breaks", "failed"], ["works", "done"]]);
  });

  it("lets the parent's gate block a sub-agent's tool call (approvals and tool:before hooks apply inside)", async () => {
    server = await startLlmServer({
      defaultReply: script([{ goal: "think hard" }], (request) =>
        hasToolResult(request) ? { kind: "text", text: "could not think", usage: USAGE } : { kind: "tools", calls: [{ name: "think", arguments: { thought: "secret" } }], usage: USAGE }),
    });
    const agent = await delegatingAgent();
    const gated: ToolStartEvent[] = [];
    const result = await agent.run("go", {
      callbacks: {
        onToolStart: (event) => {
          gated.push(event);
          return event.toolName === "think" ? { block: true, reason: "thinking needs approval" } : undefined;
        },
      },
    });

    expect(result.stopReason).toBe("completed");
    expect(gated.map((event) => event.toolName)).toEqual(["delegate_task", "think"]);
    const subagentSecond = server.requests.filter(isSubagent)[1];
    expect(JSON.stringify(subagentSecond?.messages)).toContain("blocked by the operator's policy: thinking needs approval");
    expect(delegationResult(server.requests.at(-1))).toContain("## Task 1: think hard\ncould not think");
  });

  it("stops both sub-agents when the run is stopped, and their lineage says stopped", async () => {
    server = await startLlmServer({ defaultReply: script([{ goal: "first" }, { goal: "second" }], () => ({ kind: "hang" })) });
    const agent = await delegatingAgent();
    const stop = new AbortController();
    const running = agent.run("do both", { signal: stop.signal, sessionId: "session-3" });
    await waitUntil(() => server.requests.filter(isSubagent).length === 2, "both sub-agents to call the model");
    stop.abort();
    const result = await running;

    expect(result.stopReason).toBe("ABORT");
    await waitUntil(() => lineage.length === 2, "both sub-agents to be recorded");
    expect(lineage.map((run) => run.status)).toEqual(["stopped", "stopped"]);
    expect(server.requests).toHaveLength(3);
  });

  it("lets sub-agents work longer than one tool call may take, within the run's own time", async () => {
    server = await startLlmServer({
      defaultReply: script([{ goal: "slow" }], () => ({ kind: "text", text: "slow but done", chunks: 4, delayMsBetweenChunks: 100, usage: USAGE })),
    });
    const agent = await delegatingAgent({ toolTimeoutMs: 50 });
    const result = await agent.run("take your time");

    expect(result.stopReason).toBe("completed");
    expect(delegationResult(server.requests.at(-1))).toContain("## Task 1: slow\nslow but done");
  });

  it("is not offered without a delegation configuration", async () => {
    server = await startLlmServer({ defaultReply: { kind: "text", text: "hi", usage: USAGE } });
    const resolved = resolveModel({ model: "scripted-model", baseUrl: server.baseUrl, apiKey: "sk-test-0123456789abcdef" });
    if (!resolved.ok) throw new Error(resolved.error);
    const agent = await HermesAgent.create({ model: resolved.binding, stateDir: path.join(home, "state"), builtinTools: { enable: ["think"] } });
    await agent.run("hello");
    expect(toolNames(server.requests[0])).toEqual(["think"]);
  });
});
