import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startLlmServer, type LlmServer } from "./fakes/llm-server.js";
import { startOtlpCollector, type CollectedSpan, type OtlpCollector } from "./fakes/otlp-collector.js";
import { ADA, startFakeTelegram, type FakeTelegram } from "./fakes/telegram/index.js";
import { startApp, type AppProcess } from "./support/app-process.js";
import { startRedis, type TestRedis } from "./support/redis-server.js";
import { waitUntil } from "./support/wait-until.js";

// Processes under test run the compiled dist/: `npm run build` first (npm test does it in pretest).
const TOKEN = "123456:OTEL-e2e-token";
const USER_TEXT = "Please look up the weather-f00d";
const TOOL_THOUGHT = "thinking-secret-b33f";
const REPLY = "It is sunny.";

let llm: LlmServer;
let telegram: FakeTelegram;
let collector: OtlpCollector;
let home: string;
let redis: TestRedis | undefined;
const apps: AppProcess[] = [];
/** Set by a test to hold a streamed reply between its chunks (the stand-in LLM's only pause). */
let holdStream: (() => Promise<void>) | undefined;

beforeEach(async () => {
  holdStream = undefined;
  llm = await startLlmServer({ sleep: (ms) => holdStream?.() ?? new Promise((resolve) => setTimeout(resolve, ms)) });
  telegram = await startFakeTelegram({ token: TOKEN });
  collector = await startOtlpCollector();
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-otel-"));
});
afterEach(async () => {
  for (const app of apps.splice(0)) {
    app.kill("SIGKILL");
    await app.exited;
  }
  await redis?.stop();
  redis = undefined;
  await collector.close();
  await telegram.close();
  await llm.close();
  await rm(home, { recursive: true, force: true });
});

function env(extra: Record<string, string>): Record<string, string> {
  return {
    HOME: home,
    HERMES_HOME: path.join(home, "state"),
    HERMES_BASE_URL: llm.baseUrl,
    HERMES_MODEL: "scripted-model",
    HERMES_API_KEY: "test-key",
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    ...extra,
  };
}

function gateway(extra: Record<string, string> = {}): AppProcess {
  const app = startApp("gateway", env({
    HERMES_HTTP_PORT: "0",
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    HERMES_ALLOWED_USERS: `telegram:${ADA.id}`,
    ...extra,
  }));
  apps.push(app);
  return app;
}

/** One conversation: a tool call, then the final answer, delivered to Telegram. */
async function converse(): Promise<void> {
  llm.enqueue({ kind: "tools", calls: [{ name: "think", arguments: { thought: TOOL_THOUGHT } }] }, { kind: "text", text: REPLY });
  telegram.userWrites({ from: ADA, text: USER_TEXT });
  await waitUntil(() => telegram.sentTo(ADA.id).length > 0, "the reply");
  expect(telegram.sentTo(ADA.id)[0]?.text).toContain("sunny");
}

/** Stops gracefully: the spans still buffered are flushed to the collector on the way out. */
async function stop(app: AppProcess): Promise<void> {
  app.kill("SIGTERM");
  expect(await app.exited).toEqual({ code: 0, signal: null });
}

function only(spans: CollectedSpan[], name: string): CollectedSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1) throw new Error(`expected one "${name}" span, got ${found.length}: ${spans.map((s) => s.name).join(", ")}`);
  return found[0] as CollectedSpan;
}

const CONVERSATION_SPANS = ["receive telegram", "hermes.run", "invoke_agent hermes", "chat scripted-model", "execute_tool think", "send telegram"];

function conversationComplete(spans: CollectedSpan[]): boolean {
  return CONVERSATION_SPANS.every((name) => spans.some((span) => span.name === name)) && spans.filter((span) => span.name === "chat scripted-model").length === 2;
}

/** inbound → run → agent → (chat, tool, chat), and the delivery under the inbound: all one trace. */
function expectOneConversationTrace(spans: CollectedSpan[]): { receive: CollectedSpan; run: CollectedSpan; send: CollectedSpan } {
  const receive = only(spans, "receive telegram");
  const run = only(spans, "hermes.run");
  const agent = only(spans, "invoke_agent hermes");
  const tool = only(spans, "execute_tool think");
  const send = only(spans, "send telegram");
  const chats = spans.filter((span) => span.name === "chat scripted-model");
  expect(chats).toHaveLength(2);

  expect(receive.parentSpanId).toBeUndefined();
  expect(run.parentSpanId).toBe(receive.spanId);
  expect(agent.parentSpanId).toBe(run.spanId);
  for (const child of [...chats, tool]) expect(child.parentSpanId).toBe(agent.spanId);
  expect(send.parentSpanId).toBe(receive.spanId);
  const conversation = [receive, run, agent, tool, send, ...chats];
  expect(new Set(conversation.map((span) => span.traceId))).toEqual(new Set([receive.traceId]));

  expect(receive.attributes).toMatchObject({ "messaging.system": "telegram" });
  expect(chats.map((chat) => chat.attributes["gen_ai.response.finish_reasons"])).toEqual([["toolUse"], ["stop"]]);
  expect(chats[0]?.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.request.model": "scripted-model" });
  expect(tool.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "think" });
  expect(send.attributes).toMatchObject({ "messaging.system": "telegram", "hermes.delivery.kind": "reply", "hermes.delivery.outcome": "sent" });
  // What people wrote, the tool's arguments and the answer never reach the trace back end.
  const exported = JSON.stringify(spans);
  for (const text of [USER_TEXT, TOOL_THOUGHT, REPLY]) expect(exported).not.toContain(text);
  return { receive, run, send };
}

describe("OpenTelemetry traces exported over OTLP to a stand-in collector", () => {
  for (const protocol of ["http/protobuf", "http/json"] as const) {
    it(`exports one Telegram conversation as one trace (${protocol})`, async () => {
      const app = gateway({ OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
      await app.waitFor("gateway started");
      await converse();
      await stop(app);

      const spans = await collector.waitFor(conversationComplete);
      expect(new Set(collector.requests.map((request) => request.encoding))).toEqual(new Set([protocol === "http/json" ? "json" : "protobuf"]));
      expectOneConversationTrace(spans);
      expect(new Set(spans.map((span) => span.serviceName))).toEqual(new Set(["hermes-gateway"]));
    }, 60_000);
  }

  it("keeps one trace id across the gateway and a BullMQ worker, each under its own service name", async () => {
    redis = await startRedis();
    const worker = startApp("worker", env({ REDIS_URL: redis.url }));
    apps.push(worker);
    await worker.waitFor("worker started");
    const app = gateway({ REDIS_URL: redis.url });
    await app.waitFor("gateway started");
    await converse();
    await stop(app);
    await stop(worker);

    const spans = await collector.waitFor(conversationComplete);
    const { receive, run, send } = expectOneConversationTrace(spans);
    expect(receive.serviceName).toBe("hermes-gateway");
    expect(send.serviceName).toBe("hermes-gateway");
    expect(run.serviceName).toBe("hermes-worker");
    for (const name of ["invoke_agent hermes", "chat scripted-model", "execute_tool think"]) {
      for (const span of spans.filter((s) => s.name === name)) expect([span.serviceName, span.traceId]).toEqual(["hermes-worker", receive.traceId]);
    }
  }, 90_000);

  it("puts a message answered on a worker in another message's job into its own trace", async () => {
    redis = await startRedis();
    const worker = startApp("worker", env({ REDIS_URL: redis.url }));
    apps.push(worker);
    await worker.waitFor("worker started");
    const app = gateway({ REDIS_URL: redis.url });
    await app.waitFor("gateway started");

    // The first answer stalls mid-stream until the second message has been received, so the worker's job for the
    // first message answers the second too (its session is busy) — a job whose context is the first message's.
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    holdStream = () => released;
    llm.enqueue({ kind: "text", text: "First answer.", chunks: 2, delayMsBetweenChunks: 1 }, { kind: "text", text: "Second answer." });
    telegram.userWrites({ from: ADA, text: "first question" });
    await waitUntil(() => llm.requests.length === 1, "the first run");
    telegram.userWrites({ from: ADA, text: "second question" });
    await waitUntil(() => telegram.sentTo(ADA.id).some((sent) => sent.visible.includes("still answering")), "the busy acknowledgement");
    release();
    await waitUntil(() => telegram.sentTo(ADA.id).some((sent) => sent.visible.includes("Second answer.")), "the second reply");
    await stop(app);
    await stop(worker);

    const spans = await collector.waitFor((all) => all.filter((span) => span.name === "hermes.run").length === 2 && all.filter((span) => span.name === "send telegram" && span.attributes["hermes.delivery.kind"] === "reply").length === 2);
    const receives = spans.filter((span) => span.name === "receive telegram");
    expect(receives).toHaveLength(2);
    for (const receive of receives) {
      const ofMessage = (name: string) => spans.filter((span) => span.name === name && span.attributes["hermes.inbound_id"] === receive.attributes["hermes.inbound_id"] && span.attributes["hermes.delivery.kind"] !== "notice");
      const [run, ...moreRuns] = ofMessage("hermes.run");
      const [send, ...moreSends] = ofMessage("send telegram");
      expect([moreRuns, moreSends]).toEqual([[], []]);
      expect(run).toMatchObject({ serviceName: "hermes-worker", traceId: receive.traceId, parentSpanId: receive.spanId });
      expect(send).toMatchObject({ serviceName: "hermes-gateway", traceId: receive.traceId, parentSpanId: receive.spanId });
    }
    expect(new Set(receives.map((receive) => receive.traceId)).size).toBe(2);
  }, 90_000);
});
