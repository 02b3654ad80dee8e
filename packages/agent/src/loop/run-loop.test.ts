import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxText, fauxToolCall, type Context, type ToolResultMessage } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import type { ContextCompressor } from "../context/compressor.js";
import { defineTool } from "../tools/types.js";
import { fauxAgentFixture, recordingTool, registryWith, type FauxAgentFixture } from "../testing/faux.js";

let fx: FauxAgentFixture;
beforeEach(async () => {
  fx = await fauxAgentFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

function toolResults(messages: readonly { role: string }[]): ToolResultMessage[] {
  return messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
}

function resultText(message: ToolResultMessage): string {
  return message.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

describe("agent loop on the faux provider", () => {
  it("runs a multi-step tool round trip and returns the final answer", async () => {
    const log: string[] = [];
    const agent = await fx.make({ tools: registryWith(recordingTool("lookup", "parallel-safe", log)) });
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("lookup", { value: 1 })], { stopReason: "toolUse" }),
      fauxAssistantMessage([fauxToolCall("lookup", { value: 2 })], { stopReason: "toolUse" }),
      fauxAssistantMessage("The answer is 3."),
    ]);
    const result = await agent.run("add things");
    expect(result.stopReason).toBe("completed");
    expect(result.text).toBe("The answer is 3.");
    expect(result.steps).toBe(3);
    expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant", "toolResult", "assistant"]);
    expect(toolResults(result.newMessages).map(resultText)).toEqual(["lookup(1) done", "lookup(2) done"]);
    expect(log).toEqual(["start lookup(1)", "end lookup(1)", "start lookup(2)", "end lookup(2)"]);
  });

  it("runs parallel-safe calls concurrently and keeps results in call order", async () => {
    const log: string[] = [];
    const slow = recordingTool("slow", "parallel-safe", log, { delayMs: 60 });
    const fast = recordingTool("fast", "parallel-safe", log, { delayMs: 5 });
    const agent = await fx.make({ tools: registryWith(slow, fast) });
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("slow", { value: 1 }), fauxToolCall("fast", { value: 2 })], { stopReason: "toolUse" }),
      fauxAssistantMessage("done"),
    ]);
    const result = await agent.run("go");
    expect(log.slice(0, 2)).toEqual(["start slow(1)", "start fast(2)"]);
    expect(log.indexOf("end fast(2)")).toBeLessThan(log.indexOf("end slow(1)"));
    expect(toolResults(result.newMessages).map((m) => m.toolName)).toEqual(["slow", "fast"]);
  });

  it("serializes never-parallel calls and path-scoped calls on overlapping paths", async () => {
    const log: string[] = [];
    const shell = recordingTool("shell", "never-parallel", log);
    const write = recordingTool("write", "path-scoped", log, { paths: (a) => [`/ws/${a.path ?? ""}`] });
    const agent = await fx.make({ tools: registryWith(shell, write) });
    fx.faux.setResponses([
      fauxAssistantMessage(
        [
          fauxToolCall("write", { path: "a/x.txt" }),
          fauxToolCall("write", { path: "b/y.txt" }),
          fauxToolCall("write", { path: "a" }),
          fauxToolCall("shell", { value: 1 }),
          fauxToolCall("shell", { value: 2 }),
        ],
        { stopReason: "toolUse" },
      ),
      fauxAssistantMessage("done"),
    ]);
    await agent.run("go");
    expect(log).toEqual([
      "start write(a/x.txt)", "start write(b/y.txt)", "end write(a/x.txt)", "end write(b/y.txt)",
      "start write(a)", "end write(a)",
      "start shell(1)", "end shell(1)",
      "start shell(2)", "end shell(2)",
    ]);
  });

  it("sends invalid arguments and unknown tools back to the model as tool errors", async () => {
    const log: string[] = [];
    const agent = await fx.make({ tools: registryWith(recordingTool("lookup", "parallel-safe", log)) });
    let seen: Context | undefined;
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("lookup", { value: "not a number at all" }), fauxToolCall("nope", {})], { stopReason: "toolUse" }),
      (context) => {
        seen = context;
        return fauxAssistantMessage("recovered");
      },
    ]);
    const result = await agent.run("go");
    expect(result.text).toBe("recovered");
    expect(log).toEqual([]);
    const [invalid, unknown] = toolResults(seen?.messages ?? []);
    expect(invalid?.isError).toBe(true);
    expect(resultText(invalid as ToolResultMessage)).toMatch(/Invalid arguments for lookup/);
    expect(unknown?.isError).toBe(true);
    expect(resultText(unknown as ToolResultMessage)).toMatch(/Unknown tool "nope".*Available tools: lookup/);
  });

  it("refuses an identical call that keeps failing", async () => {
    const log: string[] = [];
    const agent = await fx.make({
      tools: registryWith(recordingTool("flaky", "parallel-safe", log, { fail: true, delayMs: 1 })),
      budget: { maxToolRetriesPerCall: 1 },
    });
    const call = () => fauxAssistantMessage([fauxToolCall("flaky", { value: 7 })], { stopReason: "toolUse" });
    fx.faux.setResponses([call(), call(), call(), fauxAssistantMessage("giving up")]);
    const result = await agent.run("go");
    expect(log.filter((l) => l.startsWith("start"))).toHaveLength(2);
    const last = toolResults(result.newMessages).at(-1);
    expect(resultText(last as ToolResultMessage)).toMatch(/already failed 2 times/);
  });

  it("asks for a grace summary when the step budget runs out", async () => {
    const log: string[] = [];
    const agent = await fx.make({ tools: registryWith(recordingTool("lookup", "parallel-safe", log, { delayMs: 1 })), budget: { maxSteps: 2 } });
    let graceContext: Context | undefined;
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("lookup", { value: 1 })], { stopReason: "toolUse" }),
      fauxAssistantMessage([fauxToolCall("lookup", { value: 2 })], { stopReason: "toolUse" }),
      (context) => {
        graceContext = context;
        return fauxAssistantMessage("I looked up 1 and 2; 3 is left.");
      },
    ]);
    const result = await agent.run("go");
    expect(result.stopReason).toBe("MAX_ITERATIONS_EXCEEDED");
    expect(result.text).toBe("I looked up 1 and 2; 3 is left.");
    // The same tools stay declared (Anthropic rejects tool blocks in a request without tools); the prompt forbids calls.
    expect(graceContext?.tools?.map((t) => t.name)).toEqual(["lookup"]);
    const lastUser = graceContext?.messages.at(-1);
    expect(lastUser?.role).toBe("user");
    expect(JSON.stringify(lastUser)).toMatch(/cannot call tools/);
    // The nudge is not kept; the summary is, after the last tool result.
    expect(result.newMessages.at(-1)?.role).toBe("assistant");
    expect(result.newMessages.filter((m) => m.role === "user")).toHaveLength(1);
  });

  it("falls back to a static message when the grace call fails", async () => {
    const agent = await fx.make({ tools: registryWith(recordingTool("lookup", "parallel-safe", [], { delayMs: 1 })), budget: { maxSteps: 1 } });
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("lookup", { value: 1 })], { stopReason: "toolUse" }),
      fauxAssistantMessage([], { stopReason: "error", errorMessage: "503 overloaded" }),
    ]);
    const result = await agent.run("go");
    expect(result.stopReason).toBe("MAX_ITERATIONS_EXCEEDED");
    expect(result.text).toMatch(/limit of 1 steps/);
  });

  it("keeps going when callbacks throw", async () => {
    const agent = await fx.make({
      tools: registryWith(recordingTool("lookup", "parallel-safe", [], { delayMs: 1 })),
      callbacks: {
        onTextDelta: () => { throw new Error("boom"); },
        onToolStart: () => { throw new Error("boom"); },
        onToolEnd: async () => { throw new Error("boom"); },
        onStep: () => { throw new Error("boom"); },
      },
    });
    fx.faux.setResponses([fauxAssistantMessage([fauxText("checking"), fauxToolCall("lookup", { value: 1 })], { stopReason: "toolUse" }), fauxAssistantMessage("fine")]);
    const result = await agent.run("go");
    expect(result.stopReason).toBe("completed");
    expect(result.text).toBe("fine");
  });

  it("lets onToolStart block a call", async () => {
    const log: string[] = [];
    const agent = await fx.make({ tools: registryWith(recordingTool("lookup", "parallel-safe", log)) });
    fx.faux.setResponses([fauxAssistantMessage([fauxToolCall("lookup", { value: 1 })], { stopReason: "toolUse" }), fauxAssistantMessage("ok")]);
    const result = await agent.run("go", { callbacks: { onToolStart: () => ({ block: true, reason: "not today" }) } });
    expect(log).toEqual([]);
    expect(resultText(toolResults(result.newMessages)[0] as ToolResultMessage)).toMatch(/blocked.*not today/);
  });

  it("streams text deltas and reports steps", async () => {
    const agent = await fx.make();
    fx.faux.setResponses([fauxAssistantMessage("Hello there, this is a longer streamed answer.")]);
    const deltas: string[] = [];
    const steps: number[] = [];
    const result = await agent.run("hi", { callbacks: { onTextDelta: (d) => deltas.push(d), onStep: (e) => { steps.push(e.step); } } });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(result.text);
    expect(steps).toEqual([1]);
  });

  it("times out a slow tool and reports it to the model", async () => {
    const hang = defineTool({
      name: "hang",
      description: "never returns",
      parameters: Type.Object({}),
      concurrency: "parallel-safe",
      timeoutMs: 30,
      handler: () => new Promise(() => {}),
    });
    const agent = await fx.make({ tools: registryWith(hang) });
    fx.faux.setResponses([fauxAssistantMessage([fauxToolCall("hang", {})], { stopReason: "toolUse" }), fauxAssistantMessage("moved on")]);
    const result = await agent.run("go");
    expect(result.text).toBe("moved on");
    expect(resultText(toolResults(result.newMessages)[0] as ToolResultMessage)).toMatch(/timed out/);
  });

  it("aborts during a tool call and yields an ABORT result with a valid transcript", async () => {
    const controller = new AbortController();
    const waits = defineTool({
      name: "waits",
      description: "waits for abort",
      parameters: Type.Object({}),
      concurrency: "parallel-safe",
      handler: (_args, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => resolve({ content: "interrupted" }));
          setTimeout(() => controller.abort(), 10);
        }),
    });
    const agent = await fx.make({ tools: registryWith(waits) });
    fx.faux.setResponses([fauxAssistantMessage([fauxToolCall("waits", {})], { stopReason: "toolUse" }), fauxAssistantMessage("never")]);
    const result = await agent.run("go", { signal: controller.signal });
    expect(result.stopReason).toBe("ABORT");
    expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(fx.faux.getPendingResponseCount()).toBe(1);
  });

  it("asks again once after an empty reply without keeping it", async () => {
    const agent = await fx.make();
    let second: Context | undefined;
    fx.faux.setResponses([
      fauxAssistantMessage([]),
      (context) => {
        second = context;
        return fauxAssistantMessage("now with words");
      },
    ]);
    const result = await agent.run("hi");
    expect(result.text).toBe("now with words");
    expect(JSON.stringify(second?.messages.at(-1))).toMatch(/previous reply was empty/);
    expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("continues from earlier history", async () => {
    const agent = await fx.make();
    fx.faux.setResponses([fauxAssistantMessage("first"), (context) => fauxAssistantMessage(`seen ${context.messages.length}`)]);
    const first = await agent.run("one");
    const second = await agent.run("two", { history: first.history });
    expect(second.text).toBe("seen 3");
    expect(second.history).toHaveLength(4);
  });

  it("compresses proactively before a model call when the compressor says so", async () => {
    const agent = await fx.make();
    let seen: Context | undefined;
    fx.faux.setResponses([
      (context) => {
        seen = context;
        return fauxAssistantMessage("short now");
      },
    ]);
    const compressor = {
      shouldCompress: () => true,
      compress: async (messages: Parameters<ContextCompressor["compress"]>[0]) => ({
        messages: [{ role: "user" as const, content: "[summary] earlier talk", timestamp: 1 }, ...messages.slice(-1)],
        savedTokens: 100,
      }),
    } as unknown as ContextCompressor;
    const history = [{ role: "user" as const, content: "old question", timestamp: 1 }, fauxAssistantMessage("old answer")];
    const result = await agent.run("new question", { history, compressor });
    expect(result.compacted).toBe(true);
    expect(seen?.messages.map((m) => m.role)).toEqual(["user", "user"]);
    expect(result.history.map((m) => m.role)).toEqual(["user", "user", "assistant"]);
  });

  it("gives up with a readable message when the model answers empty twice", async () => {
    const agent = await fx.make();
    fx.faux.setResponses([fauxAssistantMessage([]), fauxAssistantMessage([]), fauxAssistantMessage("never")]);
    const result = await agent.run("hi");
    expect(result.stopReason).toBe("API_ERROR");
    expect(result.text).toMatch(/empty answer twice/);
    expect(fx.faux.getPendingResponseCount()).toBe(1);
  });

  it("keeps the user's message in newMessages when repair drops a failed earlier reply", async () => {
    const agent = await fx.make();
    fx.faux.setResponses([fauxAssistantMessage("hello back")]);
    const failed = fauxAssistantMessage([], { stopReason: "error", errorMessage: "500" });
    const result = await agent.run("second", { history: [{ role: "user", content: "first", timestamp: 1 }, failed] });
    expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(JSON.stringify(result.newMessages[0])).toContain("second");
  });

  it("turns a tool that returns a malformed result into a tool error", async () => {
    const broken = defineTool({
      name: "broken",
      description: "returns nothing",
      parameters: Type.Object({}),
      concurrency: "parallel-safe",
      handler: async () => undefined as unknown as { content: string },
    });
    const agent = await fx.make({ tools: registryWith(broken) });
    fx.faux.setResponses([fauxAssistantMessage([fauxToolCall("broken", {})], { stopReason: "toolUse" }), fauxAssistantMessage("coped")]);
    const result = await agent.run("go");
    expect(result.text).toBe("coped");
    expect(resultText(toolResults(result.newMessages)[0] as ToolResultMessage)).toMatch(/invalid result/);
  });
});
