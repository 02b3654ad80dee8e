import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { fauxAgentFixture, recordingTool, registryWith, type FauxAgentFixture } from "../testing/faux.js";
import type { ContextCompressor } from "../context/compressor.js";
import { defineTool } from "../tools/types.js";
import { idOf, parentIdOf, recordingTracer, type RecordingTracer } from "./tracer.fixture.js";

let fx: FauxAgentFixture;
let recorder: RecordingTracer;
beforeEach(async () => {
  fx = await fauxAgentFixture();
  recorder = recordingTracer();
});
afterEach(async () => {
  context.disable();
  await recorder.shutdown();
  await fx.cleanup();
});

const SECRET_TEXT = "my-private-question-7f3a";

describe("agent spans (OpenTelemetry GenAI conventions)", () => {
  it("traces a run as invoke_agent with chat and execute_tool children, without message text or arguments", async () => {
    const agent = await fx.make({ tracer: recorder.tracer, tools: registryWith(recordingTool("lookup", "parallel-safe", [], { delayMs: 1 })) });
    const model = fx.faux.getModel();
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("lookup", { path: "args-secret-91c2" }, { id: "call-1" })], { stopReason: "toolUse" }),
      fauxAssistantMessage("The answer."),
    ]);
    const result = await agent.run(SECRET_TEXT, { sessionId: "session-1" });
    expect(result.stopReason).toBe("completed");

    const names = recorder.spans().map((span) => span.name);
    expect(names).toEqual([`chat ${model.id}`, "execute_tool lookup", `chat ${model.id}`, "invoke_agent hermes"]);
    const run = recorder.one("invoke_agent hermes");
    expect(parentIdOf(run)).toBeUndefined();
    for (const span of recorder.spans().filter((s) => s !== run)) {
      expect(parentIdOf(span)).toBe(idOf(run));
      expect(span.spanContext().traceId).toBe(run.spanContext().traceId);
    }
    expect(result.traceId).toBe(run.spanContext().traceId);
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "hermes",
      "gen_ai.conversation.id": "session-1",
      "gen_ai.request.model": model.id,
      "hermes.stop_reason": "completed",
      "hermes.steps": 2,
    });

    const [firstChat, secondChat] = recorder.spans().filter((span) => span.name.startsWith("chat "));
    expect(firstChat?.kind).toBe(SpanKind.CLIENT);
    expect(firstChat?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": model.provider,
      "gen_ai.system": model.provider,
      "gen_ai.request.model": model.id,
      "gen_ai.response.finish_reasons": ["toolUse"],
      "hermes.step": 1,
      "hermes.attempt": 1,
    });
    expect(typeof firstChat?.attributes["gen_ai.usage.input_tokens"]).toBe("number");
    expect(typeof firstChat?.attributes["gen_ai.usage.output_tokens"]).toBe("number");
    expect(secondChat?.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);

    const tool = recorder.one("execute_tool lookup");
    expect(tool.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup", "gen_ai.tool.call.id": "call-1", "hermes.tool.status": "ok" });
    expect(tool.status.code).not.toBe(SpanStatusCode.ERROR);

    const everything = JSON.stringify(recorder.spans().map((span) => [span.attributes, span.status, span.events]));
    expect(everything).not.toContain(SECRET_TEXT);
    expect(everything).not.toContain("args-secret-91c2");
    expect(everything).not.toContain("The answer.");
  });

  it("nests each concurrent tool's own work under its execute_tool span, and the run under the caller's span", async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const activeInTool = new Map<string, string | undefined>();
    const probe = (name: string, delayMs: number) =>
      defineTool({
        name,
        description: "records the span active while it runs",
        parameters: Type.Object({}),
        concurrency: "parallel-safe",
        handler: async () => {
          await new Promise((resolve) => setTimeout(resolve, delayMs));
          activeInTool.set(name, trace.getActiveSpan()?.spanContext().spanId);
          return { content: "ok" };
        },
      });
    const agent = await fx.make({ tracer: recorder.tracer, tools: registryWith(probe("slow", 30), probe("fast", 1)) });
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("slow", {}), fauxToolCall("fast", {})], { stopReason: "toolUse" }),
      fauxAssistantMessage("done"),
    ]);
    await recorder.tracer.startActiveSpan("gateway run", async (outer) => {
      await agent.run("go");
      outer.end();
    });

    const run = recorder.one("invoke_agent hermes");
    expect(parentIdOf(run)).toBe(idOf(recorder.one("gateway run")));
    const slow = recorder.one("execute_tool slow");
    const fast = recorder.one("execute_tool fast");
    expect(parentIdOf(slow)).toBe(idOf(run));
    expect(parentIdOf(fast)).toBe(idOf(run));
    expect(activeInTool.get("slow")).toBe(idOf(slow));
    expect(activeInTool.get("fast")).toBe(idOf(fast));
  });

  it("shows retries as failed chat spans with error.type, and the switch to the fallback model", async () => {
    const faux = registerFauxProvider({ provider: "faux-two", models: [{ id: "primary-model" }, { id: "backup-model" }] });
    try {
      const primary = faux.getModel("primary-model");
      const backup = faux.getModel("backup-model");
      if (!primary || !backup) throw new Error("faux models missing");
      const agent = await fx.make({
        tracer: recorder.tracer,
        model: { model: primary, apiKey: "k1" },
        fallbackModel: { model: backup, apiKey: "k2" },
        budget: { maxModelAttempts: 2 },
      });
      faux.setResponses([
        fauxAssistantMessage([], { stopReason: "error", errorMessage: "503 overloaded" }),
        fauxAssistantMessage([], { stopReason: "error", errorMessage: "503 overloaded" }),
        fauxAssistantMessage("from the backup"),
      ]);
      const result = await agent.run("hi");
      expect(result.text).toBe("from the backup");

      const chats = recorder.spans().filter((span) => span.name.startsWith("chat "));
      expect(chats.map((span) => [span.name, span.attributes["hermes.attempt"], span.attributes["hermes.fallback"], span.status.code])).toEqual([
        ["chat primary-model", 1, false, SpanStatusCode.ERROR],
        ["chat primary-model", 2, false, SpanStatusCode.ERROR],
        ["chat backup-model", 1, true, SpanStatusCode.UNSET],
      ]);
      expect(chats[0]?.attributes["error.type"]).toBeTypeOf("string");
      expect(chats[0]?.attributes["http.response.status_code"]).toBe(503);
      expect(recorder.one("invoke_agent hermes").attributes["gen_ai.response.model"]).toBe("backup-model");
    } finally {
      faux.unregister();
    }
  });

  it("marks the run failed with the error class when the model gives up, and a failing tool with error.type only", async () => {
    const agent = await fx.make({
      tracer: recorder.tracer,
      tools: registryWith(recordingTool("flaky", "parallel-safe", [], { delayMs: 1, fail: true })),
      budget: { maxModelAttempts: 1 },
    });
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("flaky", { value: 4 })], { stopReason: "toolUse" }),
      fauxAssistantMessage([], { stopReason: "error", errorMessage: "401 invalid api key" }),
    ]);
    const result = await agent.run("go");
    expect(result.stopReason).toBe("API_ERROR");

    const tool = recorder.one("execute_tool flaky");
    expect(tool.status.code).toBe(SpanStatusCode.ERROR);
    expect(tool.attributes).toMatchObject({ "error.type": "tool_error", "hermes.tool.status": "error" });
    // The tool's output never reaches the trace.
    expect(JSON.stringify(tool.status)).not.toContain("flaky(4) failed");

    const run = recorder.one("invoke_agent hermes");
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    expect(run.attributes["error.type"]).toBe(result.error?.errorClass);
    expect(run.attributes["hermes.stop_reason"]).toBe("API_ERROR");
  });

  it("traces compression as its own child span", async () => {
    const agent = await fx.make({ tracer: recorder.tracer });
    fx.faux.setResponses([fauxAssistantMessage("short now")]);
    const compressor = {
      shouldCompress: () => true,
      compress: async (messages: Parameters<ContextCompressor["compress"]>[0]) => ({
        messages: [{ role: "user" as const, content: "[summary]", timestamp: 1 }, ...messages.slice(-1)],
        savedTokens: 10,
      }),
    } as unknown as ContextCompressor;
    await agent.run("new question", { history: [{ role: "user", content: "old", timestamp: 1 }], compressor });
    const compression = recorder.one("context_compression");
    expect(parentIdOf(compression)).toBe(idOf(recorder.one("invoke_agent hermes")));
    expect(compression.attributes).toMatchObject({ "hermes.compression.reason": "proactive", "hermes.compression.compressed": true, "hermes.compression.saved_tokens": 10 });
  });

  it("shows an overflow as a failed chat, a compression and a second chat, in that order", async () => {
    const agent = await fx.make({ tracer: recorder.tracer, compress: async (messages) => messages.slice(-1) });
    fx.faux.setResponses([
      fauxAssistantMessage([], { stopReason: "error", errorMessage: "400 This model's maximum context length is 8192 tokens." }),
      fauxAssistantMessage("fits now"),
    ]);
    const result = await agent.run("hello", { history: [{ role: "user", content: "old", timestamp: 1 }] });
    expect(result.text).toBe("fits now");
    const model = fx.faux.getModel().id;
    expect(recorder.spans().map((span) => [span.name, span.status.code === SpanStatusCode.ERROR])).toEqual([
      [`chat ${model}`, true],
      ["context_compression", false],
      [`chat ${model}`, false],
      ["invoke_agent hermes", false],
    ]);
    expect(recorder.one("context_compression").attributes).toMatchObject({ "hermes.compression.reason": "overflow", "hermes.compression.compressed": true });
  });

  it("runs untraced without an SDK: no trace id, same answer", async () => {
    const agent = await fx.make();
    fx.faux.setResponses([fauxAssistantMessage("plain")]);
    const result = await agent.run("hi");
    expect(result.text).toBe("plain");
    expect(result.traceId).toBeUndefined();
    expect(recorder.spans()).toEqual([]);
  });
});
