import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HermesAgent, createJsonLogger, resolveModel, type HermesAgentConfig, type ModelBinding } from "@hermes/agent";
import { startAnthropicServer, type AnthropicServer, type AnthropicServerOptions } from "./fakes/anthropic-server.js";

// Key rotation and masking are checked against these; they look like real keys so shape-based masking would apply too.
const BAD_KEY = "sk-ant-api03-revokedrevokedrevoked0001";
const GOOD_KEY = "sk-ant-api03-workingworkingworking0002";

let server: AnthropicServer;
let home: string;
let sleeps: number[];
let logLines: string[];

async function startServer(options: AnthropicServerOptions = {}): Promise<void> {
  server = await startAnthropicServer(options);
}

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-anthropic-"));
  sleeps = [];
  logLines = [];
});
afterEach(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
});

function binding(apiKey = GOOD_KEY): ModelBinding {
  // Written like an OpenAI base URL on purpose: the SDK adds /v1/messages itself.
  const resolved = resolveModel({ model: "claude-stand-in", baseUrl: `${server.baseUrl}/v1`, api: "anthropic-messages", apiKey });
  if (!resolved.ok) throw new Error(resolved.error);
  return resolved.binding;
}

async function agent(config: Partial<HermesAgentConfig> = {}): Promise<HermesAgent> {
  return HermesAgent.create({
    model: binding(),
    stateDir: path.join(home, "state"),
    builtinTools: { enable: ["think"], workspaceRoot: path.join(home, "workspace") },
    contextDir: path.join(home, "workspace"),
    logger: createJsonLogger({ level: "debug", write: (line) => logLines.push(line) }),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0,
    ...config,
  });
}

describe("a custom endpoint speaking Anthropic Messages (HERMES_API=anthropic-messages)", () => {
  it("rejects, like the real API, a transcript with tool blocks in a request that declares no tools", async () => {
    await startServer();
    const response = await fetch(`${server.baseUrl}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": GOOD_KEY },
      body: JSON.stringify({
        model: "claude-stand-in",
        max_tokens: 100,
        messages: [
          { role: "user", content: "think" },
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "think", input: {} }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] },
        ],
      }),
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("invalid_request_error");
  });

  it("runs a tool call round trip through pi-ai's Anthropic client", async () => {
    await startServer();
    const a = await agent();
    server.enqueue(
      { kind: "tools", text: "Let me think.", calls: [{ name: "think", input: { thought: "plan the answer" } }] },
      { kind: "text", text: "Thought it through: the answer is 42." },
    );
    const result = await a.run("what is the answer?");
    expect(result.stopReason).toBe("completed");
    expect(result.text).toBe("Thought it through: the answer is 42.");
    expect(server.requests.map((r) => r.status)).toEqual([200, 200]);
    expect(server.requests[0]?.tools).toEqual(["think"]);
    const second = JSON.stringify(server.requests[1]?.body["messages"]);
    expect(second).toContain('"type":"tool_use"');
    expect(second).toContain('"type":"tool_result"');
    expect(server.requests[0]?.apiKey).toBe(GOOD_KEY);
  });

  it("writes the grace summary after the step budget without the API rejecting the transcript", async () => {
    await startServer();
    const a = await agent({ budget: { maxSteps: 1 } });
    server.enqueue(
      { kind: "tools", calls: [{ name: "think", input: { thought: "step one" } }] },
      // The model tries one more call anyway; the grace call keeps only its text.
      { kind: "tools", text: "I thought about step one; step two is left.", calls: [{ name: "think", input: { thought: "step two" } }] },
    );
    const result = await a.run("do two steps");
    expect(result.stopReason).toBe("MAX_ITERATIONS_EXCEEDED");
    expect(result.text).toBe("I thought about step one; step two is left.");
    expect(server.requests.map((r) => r.status)).toEqual([200, 200]);
    const grace = server.requests[1];
    expect(grace?.tools).toEqual(["think"]);
    expect(JSON.stringify(grace?.body["messages"])).toMatch(/cannot call tools any more/);
    const last = result.newMessages.at(-1);
    expect(last?.role === "assistant" && last.content.every((block) => block.type === "text")).toBe(true);
  });

  it("writes the grace summary after the time budget, declaring the tools in that request too", async () => {
    await startServer();
    let clock = 0;
    const a = await agent({ now: () => clock, budget: { maxWallTimeMs: 60_000 } });
    server.enqueue(
      { kind: "tools", calls: [{ name: "think", input: { thought: "step one" } }] },
      { kind: "text", text: "I thought about step one; the rest is left." },
    );
    // The time runs out after the first step, so the next request is the summary.
    const result = await a.run("do it all", { callbacks: { onStep: () => { clock = 61_000; } } });
    expect(result.stopReason).toBe("WALL_TIME_EXCEEDED");
    expect(result.text).toBe("I thought about step one; the rest is left.");
    expect(server.requests.map((r) => r.status)).toEqual([200, 200]);
    const grace = server.requests[1];
    expect(grace?.tools).toEqual(["think"]);
    const sent = JSON.stringify(grace?.body["messages"]);
    expect(sent).toContain('"type":"tool_use"');
    expect(sent).toMatch(/all the time allowed for this request, so you cannot call tools any more/);
    expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  });

  it("ends with the static message when the time budget's summary request is refused", async () => {
    await startServer();
    let clock = 0;
    const a = await agent({ now: () => clock, budget: { maxWallTimeMs: 60_000 } });
    server.enqueue(
      { kind: "tools", calls: [{ name: "think", input: { thought: "step one" } }] },
      { kind: "error", status: 400, message: "scripted refusal of the summary" },
    );
    const result = await a.run("do it all", { callbacks: { onStep: () => { clock = 61_000; } } });
    expect(result.stopReason).toBe("WALL_TIME_EXCEEDED");
    expect(result.text).toMatch(/^I ran out of time for this request \(limit 1 min\) before finishing and could not write a summary/);
    expect(server.requests.map((r) => r.status)).toEqual([200, 400]);
  });

  it("waits out a 429 for its retry-after, then succeeds", async () => {
    await startServer();
    const a = await agent();
    server.enqueue(
      { kind: "error", status: 429, message: "Number of request tokens has exceeded your per-minute rate limit", headers: { "retry-after": "3" } },
      { kind: "text", text: "after the wait" },
    );
    const statuses: string[] = [];
    const result = await a.run("hello", { callbacks: { onStatus: (e) => statuses.push(e.kind) } });
    expect(result.text).toBe("after the wait");
    expect(sleeps).toEqual([3000]);
    expect(statuses).toEqual(["retry"]);
    expect(server.requests.map((r) => r.status)).toEqual([429, 200]);
  });

  it("reports an overloaded provider after the attempts run out", async () => {
    await startServer();
    const a = await agent({ budget: { maxModelAttempts: 2 } });
    server.enqueue({ kind: "error", status: 529 }, { kind: "error", status: 529 });
    const result = await a.run("hello");
    expect(result.stopReason).toBe("API_ERROR");
    expect(result.error?.errorClass).toBe("overloaded");
    expect(server.requests).toHaveLength(2);
  });
});

describe("several API keys", () => {
  it("moves on to the next key when one is rejected with 401, and never logs a key", async () => {
    await startServer({ rejectedKeys: [BAD_KEY] });
    const a = await agent({ model: binding(`${BAD_KEY},${GOOD_KEY}`) });
    server.enqueue({ kind: "text", text: "answered with the second key" });
    const result = await a.run("hello");
    expect(result.stopReason).toBe("completed");
    expect(result.text).toBe("answered with the second key");
    expect(server.requests.map((r) => [r.apiKey, r.status])).toEqual([[BAD_KEY, 401], [GOOD_KEY, 200]]);
    expect(sleeps).toEqual([]);
    const logs = logLines.join("\n");
    expect(logs).toContain("rotating to the next API key");
    expect(logs).not.toContain("revokedrevoked");
    expect(logs).not.toContain("workingworking");
  });

  it("moves on to the next key when the account's quota is used up (429 insufficient quota)", async () => {
    await startServer();
    const a = await agent({ model: binding(`${BAD_KEY},${GOOD_KEY}`) });
    server.enqueue(
      { kind: "error", status: 429, type: "insufficient_quota", message: "You exceeded your current quota, please check your plan and billing details." },
      { kind: "text", text: "second key has quota" },
    );
    const result = await a.run("hello");
    expect(result.text).toBe("second key has quota");
    expect(server.requests.map((r) => r.apiKey)).toEqual([BAD_KEY, GOOD_KEY]);
  });

  it("explains the rejection once every key has been tried", async () => {
    await startServer({ rejectedKeys: [BAD_KEY, GOOD_KEY] });
    const a = await agent({ model: binding(`${BAD_KEY},${GOOD_KEY}`) });
    const result = await a.run("hello");
    expect(result.stopReason).toBe("API_ERROR");
    expect(result.error?.errorClass).toBe("auth");
    expect(result.text).toMatch(/API key/);
    expect(server.requests.map((r) => r.apiKey)).toEqual([BAD_KEY, GOOD_KEY]);
    expect(JSON.stringify(result)).not.toContain("workingworking");
  });
});
