import { access, mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HermesAgent, resolveModel } from "@hermes/agent";
import { startLlmServer, type LlmServer } from "./fakes/llm-server.js";

let server: LlmServer;
let home: string;

beforeEach(async () => {
  server = await startLlmServer();
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-length-"));
  await mkdir(path.join(home, "workspace"), { recursive: true });
});
afterEach(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
});

async function agent(): Promise<HermesAgent> {
  const resolved = resolveModel({ model: "scripted-model", baseUrl: server.baseUrl, apiKey: "sk-test-length" });
  if (!resolved.ok) throw new Error(resolved.error);
  return HermesAgent.create({
    model: resolved.binding,
    stateDir: path.join(home, "state"),
    builtinTools: { enable: ["write_file"], workspaceRoot: path.join(home, "workspace") },
    contextDir: path.join(home, "workspace"),
    sleep: async () => {},
    random: () => 0,
  });
}

type WireMessage = { role: string; content?: unknown; tool_call_id?: string };

describe('a reply cut off with finish_reason "length" over the real pi-ai HTTP path', () => {
  it("is continued and joined, streamed once, with the usage of both calls", async () => {
    const a = await agent();
    server.enqueue(
      { kind: "text", text: "The capital of France is", finishReason: "length", usage: { prompt: 100, completion: 50 } },
      { kind: "text", text: " Paris.", usage: { prompt: 160, completion: 3 } },
    );
    const deltas: string[] = [];
    const result = await a.run("capital of France?", { callbacks: { onTextDelta: (d) => deltas.push(d) } });
    expect(result.stopReason).toBe("completed");
    expect(result.text).toBe("The capital of France is Paris.");
    expect(deltas.join("")).toBe("The capital of France is Paris.");
    expect(result.usage.input).toBe(260);
    expect(result.usage.output).toBe(53);
    expect(server.requests).toHaveLength(2);
    const continued = server.requests[1]?.messages as WireMessage[];
    expect(continued.slice(-2).map((m) => m.role)).toEqual(["assistant", "user"]);
    expect(JSON.stringify(continued.at(-2))).toContain("The capital of France is");
    expect(JSON.stringify(continued.at(-1))).toMatch(/cut off by the output token limit/);
  });

  it("never runs a tool call whose arguments were cut off, and tells the model", async () => {
    const a = await agent();
    server.enqueue(
      { kind: "tools", calls: [{ id: "call_cut", name: "write_file", arguments: '{"path": "story.txt", "content": "Once upon a ti' }], finishReason: "length" },
      { kind: "text", text: "That file was too long to write in one go; I will split it." },
    );
    const result = await a.run("write a long story to story.txt");
    expect(result.stopReason).toBe("completed");
    expect(result.text).toBe("That file was too long to write in one go; I will split it.");
    await expect(access(path.join(home, "workspace", "story.txt"))).rejects.toThrow();
    const second = server.requests[1]?.messages as WireMessage[];
    const told = second.find((m) => m.role === "tool" && m.tool_call_id === "call_cut");
    expect(JSON.stringify(told?.content)).toMatch(/Not run: your reply hit the output token limit/);
  });
});
