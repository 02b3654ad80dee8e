import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedReply, ScriptStep } from "./fakes/llm-server.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";
import { createTestDatabase, type TestDatabase } from "./support/test-database.js";
import { waitUntil } from "./support/wait-until.js";

const DM_KEY = "agent:main:telegram:dm:100";
const USAGE = { prompt: 500, completion: 50 };
const TASKS = [
  { goal: "find the capital of France", context: "answer with the city only" },
  { goal: "find the capital of Spain" },
];

let h: GatewayHarness;
let database: TestDatabase | undefined;

afterEach(async () => {
  await h?.close();
  await database?.drop();
  database = undefined;
});

const isSubagent = (request: RecordedRequest): boolean => JSON.stringify(request.messages).includes("You are a sub-agent");
/** The contents of the tool results a request carries. */
const toolResultsOf = (request: RecordedRequest): string[] =>
  request.messages.filter((m) => (m as { role?: string }).role === "tool").map((m) => JSON.stringify((m as { content?: unknown }).content));
const hasToolResult = (request: RecordedRequest): boolean => request.messages.some((m) => (m as { role?: string }).role === "tool");

/** The parent delegates both tasks, then answers with what came back; each sub-agent is answered by `subagent`. */
function route(subagent: (text: string) => ScriptedReply): ScriptStep {
  return (request) => {
    if (isSubagent(request)) return subagent(JSON.stringify(request.messages));
    if (!hasToolResult(request)) return { kind: "tools", calls: [{ id: "delegate-1", name: "delegate_task", arguments: { tasks: TASKS } }], usage: USAGE };
    const results = JSON.stringify(request.messages.filter((m) => (m as { role?: string }).role === "tool"));
    return { kind: "text", text: results.includes("Paris") && results.includes("Madrid") ? "Paris and Madrid." : "Something is missing.", usage: USAGE };
  };
}

describe("delegation through the gateway", () => {
  it.each(["SQLite", "PostgreSQL"])("answers a message whose run delegates two tasks once, keeps both sub-agents' lineage and counts their usage (%s)", async (dialect) => {
    if (dialect === "PostgreSQL") database = await createTestDatabase();
    h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", HERMES_SUBAGENT_MAX_STEPS: "3", ...(database ? { HERMES_DATABASE_URL: database.url } : {}) });
    const answer = route((text) => ({ kind: "text", text: text.includes("France") ? "Paris" : "Madrid", usage: USAGE }));
    h.llm.enqueue(answer, answer, answer, answer);

    await h.adapter.userSays("What are the capitals of France and Spain?");
    await h.gateway.waitIdle(DM_KEY);

    expect(h.adapter.texts()).toEqual(["Paris and Madrid."]);
    const toolsOfSubagent = (h.llm.requests.find(isSubagent)?.tools ?? []) as Array<{ function: { name: string } }>;
    const offered = toolsOfSubagent.map((tool) => tool.function.name);
    expect(offered).not.toContain("delegate_task");
    expect(offered).not.toContain("memory");
    expect(offered).not.toContain("skill_manage");

    const session = await h.gateway.store.sessions.active(DM_KEY);
    if (!session) throw new Error("no session for the DM");
    const runs = await h.gateway.store.subagentRuns.listForSession(session.id);
    expect(runs.map((run) => [run.goal, run.status, run.summary]).sort()).toEqual([
      ["find the capital of France", "done", "Paris"],
      ["find the capital of Spain", "done", "Madrid"],
    ]);
    expect(runs.every((run) => run.parentToolCallId === "delegate-1" && run.inputTokens === USAGE.prompt)).toBe(true);
    // The run's usage (two parent calls) includes the two sub-agents' calls.
    const usage = await h.gateway.store.usage.forSession(session.id);
    expect(usage).toMatchObject({ runs: 1, inputTokens: 4 * USAGE.prompt, outputTokens: 4 * USAGE.completion });
  });

  it("asks the person before a sub-agent's approval tool runs, and a denial reaches that sub-agent", async () => {
    h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", HERMES_TOOLS: "default,terminal" });
    const step = route((text) =>
      text.includes("denied this terminal call")
        ? { kind: "text", text: "Paris (not checked: the terminal call was denied)", usage: USAGE }
        : text.includes("France")
          ? { kind: "tools", calls: [{ name: "terminal", arguments: { command: "echo from-the-sub-agent" } }], usage: USAGE }
          : { kind: "text", text: "Madrid", usage: USAGE });
    h.llm.enqueue(step, step, step, step, step);

    await h.adapter.userSays("What are the capitals of France and Spain?");
    await waitUntil(() => h.adapter.sent.some((sent) => sent.message.buttons !== undefined), "the approval prompt");
    const index = h.adapter.sent.findIndex((sent) => sent.message.buttons !== undefined);
    const prompt = h.adapter.sent[index];
    expect(prompt?.message.text).toContain("echo from-the-sub-agent");
    const deny = prompt?.message.buttons?.find((button) => button.label === "Deny")?.value ?? "";
    await h.adapter.userSays(deny, { action: { messageId: `out-${index + 1}` } });
    await h.gateway.waitIdle(DM_KEY);

    expect(h.adapter.texts().at(-1)).toBe("Paris and Madrid.");
    const session = await h.gateway.store.sessions.active(DM_KEY);
    const runs = await h.gateway.store.subagentRuns.listForSession(session?.id ?? "");
    expect(runs.map((run) => run.summary).sort()).toEqual(["Madrid", "Paris (not checked: the terminal call was denied)"]);
  });

  it("a restart while a sub-agent works: the run is taken up again and the sub-agent's terminal command is not run twice", async () => {
    h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", HERMES_TOOLS: "default,terminal", HERMES_APPROVAL: "none" });
    const append = { name: "terminal", arguments: { command: "echo ran >> effect.txt" } };
    let hung = 0;
    const step: ScriptStep = (request) => {
      const results = toolResultsOf(request);
      if (!isSubagent(request)) {
        return results.length === 0
          ? { kind: "tools", calls: [{ id: "delegate-1", name: "delegate_task", arguments: { tasks: [{ goal: "append a line to effect.txt" }] } }] }
          : { kind: "text", text: results[0]?.includes("appended it") ? "Appended once." : "Something is missing." };
      }
      if (results.length === 0) return { kind: "tools", calls: [append] };
      // The first attempt is cut off here, after its command ran and before the sub-agent answered.
      if (hung === 0) {
        hung += 1;
        return { kind: "hang" };
      }
      return { kind: "text", text: `appended it: ${results[0]}` };
    };
    h.llm.enqueue(step, step, step, step, step, step);
    const effect = path.join(h.home, "workspace", "effect.txt");

    await h.adapter.userSays("Append a line to effect.txt");
    await waitUntil(() => hung === 1, "the sub-agent's model call after its terminal call");
    expect(await readFile(effect, "utf8")).toBe("ran\n");
    await h.restart({ drainMs: 0 });
    await h.gateway.waitIdle(DM_KEY);

    expect(h.adapter.texts()).toEqual(["Appended once."]);
    expect(await readFile(effect, "utf8")).toBe("ran\n");
    // The parent's delegating reply was replayed; its sub-agent was asked again and got the recorded result.
    const subagentResults = h.llm.requests.filter(isSubagent).map(toolResultsOf).filter((results) => results.length > 0);
    expect(subagentResults).toHaveLength(2);
    expect(subagentResults[1]).toEqual(subagentResults[0]);
    const session = await h.gateway.store.sessions.active(DM_KEY);
    const runs = await h.gateway.store.subagentRuns.listForSession(session?.id ?? "");
    expect(runs.filter((run) => run.status === "done").map((run) => run.goal)).toEqual(["append a line to effect.txt"]);
  });

  it("/stop during the sub-agents stops the run, and their lineage says stopped", async () => {
    h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7" });
    const hang = route(() => ({ kind: "hang" }));
    h.llm.enqueue(hang, hang, hang);

    await h.adapter.userSays("What are the capitals of France and Spain?");
    await waitUntil(() => h.llm.requests.filter(isSubagent).length === 2, "both sub-agents to call the model");
    await h.adapter.userSays("/stop");
    await h.gateway.waitIdle(DM_KEY);

    expect(h.adapter.texts()).toEqual([expect.stringMatching(/^Stopped/)]);
    expect(h.llm.requests).toHaveLength(3);
    const session = await h.gateway.store.sessions.active(DM_KEY);
    if (!session) throw new Error("no session for the DM");
    await waitUntil(async () => (await h.gateway.store.subagentRuns.listForSession(session.id)).length === 2, "both sub-agents to be recorded");
    const runs = await h.gateway.store.subagentRuns.listForSession(session.id);
    expect(runs.map((run) => run.status)).toEqual(["stopped", "stopped"]);
  });
});
