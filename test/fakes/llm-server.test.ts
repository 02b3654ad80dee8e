import { afterEach, describe, expect, it } from "vitest";
import { Type } from "@sinclair/typebox";
import { stream, type AssistantMessage, type AssistantMessageEvent, type Context, type Model } from "@mariozechner/pi-ai";
import { startLlmServer, type LlmServer, type LlmServerOptions } from "./llm-server.js";

let server: LlmServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options?: LlmServerOptions): Promise<LlmServer> {
  server = await startLlmServer(options);
  return server;
}

function modelFor(s: LlmServer, id = "scripted-model"): Model<"openai-completions"> {
  return {
    id,
    name: "scripted",
    api: "openai-completions",
    provider: "scripted",
    baseUrl: s.baseUrl,
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 128000,
    maxTokens: 4096,
    compat: { supportsStore: false, supportsDeveloperRole: false, maxTokensField: "max_tokens" },
  };
}

const context: Context = {
  systemPrompt: "s",
  messages: [{ role: "user", content: "hi", timestamp: 0 }],
  tools: [{ name: "read_file", description: "Reads a file", parameters: Type.Object({ path: Type.String() }) }],
};

async function run(s: LlmServer, options: { model?: string; signal?: AbortSignal } = {}) {
  const events: AssistantMessageEvent[] = [];
  const eventStream = stream(modelFor(s, options.model), context, { apiKey: "test", maxRetries: 0, signal: options.signal });
  for await (const event of eventStream) events.push(event);
  return { events, message: await eventStream.result() };
}

function textOf(message: AssistantMessage): string {
  return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

describe("startLlmServer with pi-ai's openai-completions client", () => {
  it("streams text in several deltas and reports usage", async () => {
    const s = await start();
    s.enqueue({ kind: "text", text: "Hello there, friend", chunks: 4, usage: { prompt: 12, completion: 5 } });
    const { events, message } = await run(s);
    expect(events.filter((e) => e.type === "text_delta")).toHaveLength(4);
    expect(textOf(message)).toBe("Hello there, friend");
    expect(message.stopReason).toBe("stop");
    expect(message.usage).toMatchObject({ input: 12, output: 5, totalTokens: 17 });
    expect(message.responseId).toMatch(/^chatcmpl-scripted-/);
    expect(s.pending()).toBe(0);
  });

  it("streams tool calls whose arguments pi-ai parses, with unique default ids", async () => {
    const s = await start();
    s.enqueue({
      kind: "tools",
      text: "Let me look.",
      calls: [
        { name: "read_file", arguments: { path: "/tmp/a.txt" } },
        { name: "read_file", arguments: '{"path": "/tmp/b.txt"}' },
      ],
    });
    const { events, message } = await run(s);
    expect(message.stopReason).toBe("toolUse");
    expect(textOf(message)).toBe("Let me look.");
    const calls = message.content.filter((block) => block.type === "toolCall");
    expect(calls).toEqual([
      { type: "toolCall", id: "call_1", name: "read_file", arguments: { path: "/tmp/a.txt" } },
      { type: "toolCall", id: "call_2", name: "read_file", arguments: { path: "/tmp/b.txt" } },
    ]);
    const argumentDeltas = events.filter((e) => e.type === "toolcall_delta" && e.delta.length > 0);
    expect(argumentDeltas.length).toBeGreaterThanOrEqual(4);
  });

  it("sends string arguments verbatim so tests can script malformed JSON", async () => {
    const s = await start();
    const doubleEncoded = JSON.stringify(JSON.stringify({ path: "x" }));
    s.enqueue({ kind: "tools", calls: [{ id: "call_custom", name: "read_file", arguments: doubleEncoded }] });
    const { events, message } = await run(s);
    const streamedArgs = events.map((e) => (e.type === "toolcall_delta" ? e.delta : "")).join("");
    expect(streamedArgs).toBe(doubleEncoded);
    expect(message.content.find((block) => block.type === "toolCall")).toMatchObject({ id: "call_custom" });
  });

  it("turns a scripted error into stopReason error with the status first", async () => {
    const s = await start();
    s.enqueue({ kind: "error", status: 429, headers: { "retry-after": "2" } });
    const { message } = await run(s);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/^429 /);
  });

  it("fails loudly with a 500 when no scripted reply is left", async () => {
    const s = await start();
    const { message } = await run(s);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/^500 .*llm-server: no scripted reply left/);
  });

  it("prefers the per-model queue over the shared queue", async () => {
    const s = await start();
    s.enqueue({ kind: "text", text: "shared" });
    s.enqueueFor("special-model", { kind: "text", text: "special" });
    expect(s.pending()).toBe(2);
    expect(textOf((await run(s, { model: "scripted-model" })).message)).toBe("shared");
    s.enqueue({ kind: "text", text: "shared again" });
    expect(textOf((await run(s, { model: "special-model" })).message)).toBe("special");
    expect(textOf((await run(s, { model: "special-model" })).message)).toBe("shared again");
    expect(s.pending()).toBe(0);
  });

  it("waits through the injected sleep between text chunks", async () => {
    const waits: number[] = [];
    const s = await start({ sleep: async (ms) => void waits.push(ms) });
    s.enqueue({ kind: "text", text: "abc", chunks: 3, delayMsBetweenChunks: 250 });
    expect(textOf((await run(s)).message)).toBe("abc");
    expect(waits).toEqual([250, 250]);
  });

  it("falls back to defaultReply and passes the request to function steps", async () => {
    const s = await start({ defaultReply: { kind: "text", text: "default" } });
    s.enqueue((request) => ({ kind: "text", text: `you sent ${request.messages.length} messages` }));
    expect(textOf((await run(s)).message)).toBe("you sent 2 messages");
    expect(textOf((await run(s)).message)).toBe("default");
  });

  it("records each request with its messages, tools and lowercase headers", async () => {
    const s = await start();
    s.enqueue({ kind: "text", text: "ok" });
    await run(s);
    expect(s.requests).toHaveLength(1);
    const [request] = s.requests;
    expect(request?.model).toBe("scripted-model");
    expect(request?.stream).toBe(true);
    expect(request?.messages).toEqual([
      { role: "system", content: "s" },
      { role: "user", content: "hi" },
    ]);
    expect(request?.tools).toMatchObject([{ type: "function", function: { name: "read_file" } }]);
    expect(request?.headers.authorization).toBe("Bearer test");
    expect(request?.body.stream_options).toEqual({ include_usage: true });
  });

  it("lets an AbortSignal end a hanging stream as aborted", async () => {
    const s = await start();
    s.enqueue({ kind: "hang", afterText: "thinking about it" });
    const controller = new AbortController();
    const eventStream = stream(modelFor(s), context, { apiKey: "test", maxRetries: 0, signal: controller.signal });
    for await (const event of eventStream) {
      if (event.type === "text_delta") controller.abort();
    }
    const message = await eventStream.result();
    expect(message.stopReason).toBe("aborted");
    expect(textOf(message)).toBe("thinking about it");
  });

  it("closes promptly while a stream hangs, ending the client's stream with an error", async () => {
    const s = await start();
    s.enqueue({ kind: "hang" });
    const eventStream = stream(modelFor(s), context, { apiKey: "test", maxRetries: 0 });
    const iterator = eventStream[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: "start" });
    await s.close();
    const message = await eventStream.result();
    expect(message.stopReason).toBe("error");
  });

  it("ends dropped connections and garbage streams as errors", async () => {
    const s = await start();
    s.enqueue({ kind: "drop" }, { kind: "garbage" });
    expect((await run(s)).message).toMatchObject({ stopReason: "error", errorMessage: "Connection error." });
    expect((await run(s)).message).toMatchObject({ stopReason: "error", errorMessage: expect.stringMatching(/JSON/) });
  });

  it("ends a stream broken mid-way as an error, after the text that arrived", async () => {
    const s = await start();
    s.enqueue({ kind: "break", afterText: "Half an ans" });
    const { events, message } = await run(s);
    expect(events.filter((e) => e.type === "text_delta").map((e) => (e.type === "text_delta" ? e.delta : ""))).toEqual(["Half an ans"]);
    expect(message.stopReason).toBe("error");
  });
});

describe("startLlmServer over plain HTTP", () => {
  const post = (s: LlmServer, body: unknown) =>
    fetch(`${s.baseUrl}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  it("answers stream: false with a chat.completion", async () => {
    const s = await start();
    s.enqueue({ kind: "tools", calls: [{ name: "read_file", arguments: { path: "a" } }], usage: { prompt: 3, completion: 4 } });
    const response = await post(s, { model: "m1", messages: [{ role: "user", content: "hi" }] });
    expect(await response.json()).toMatchObject({
      object: "chat.completion",
      model: "m1",
      choices: [{ finish_reason: "tool_calls", message: { role: "assistant", tool_calls: [{ id: "call_1", function: { arguments: '{"path":"a"}' } }] } }],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
    expect(s.requests[0]?.stream).toBe(false);
  });

  it("sends error replies as JSON with the scripted headers and body", async () => {
    const s = await start();
    s.enqueue({ kind: "error", status: 503, headers: { "retry-after": "2" }, body: { error: { message: "overloaded" } } });
    const response = await post(s, { model: "m1", messages: [] });
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("retry-after")).toBe("2");
    expect(await response.json()).toEqual({ error: { message: "overloaded" } });
  });

  it("lists the models seen so far plus scripted-model", async () => {
    const s = await start({ defaultReply: { kind: "text", text: "x" } });
    await (await post(s, { model: "seen-model", messages: [] })).text();
    const response = await fetch(`${s.baseUrl}/models`);
    const listed = (await response.json()) as { data: { id: string }[] };
    expect(listed.data.map((m) => m.id).sort()).toEqual(["scripted-model", "seen-model"]);
  });
});
