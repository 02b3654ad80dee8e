import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { startLlmServer, type LlmServer } from "./fakes/llm-server.js";
import { httpUrl, startApp, type AppProcess } from "./support/app-process.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";
import { startRedis, type TestRedis } from "./support/redis-server.js";
import { createTestDatabase, type TestDatabase } from "./support/test-database.js";
import { waitUntil } from "./support/wait-until.js";

const KEY = "test-api-server-key-0123456789";

let harness: GatewayHarness | undefined;
let app: AppProcess | undefined;
let llm: LlmServer | undefined;
let home: string | undefined;
let database: TestDatabase | undefined;
let redis: TestRedis | undefined;

afterEach(async () => {
  app?.kill("SIGKILL");
  if (app) await app.exited;
  app = undefined;
  await harness?.close();
  harness = undefined;
  await redis?.stop();
  redis = undefined;
  await database?.drop();
  database = undefined;
  await llm?.close();
  llm = undefined;
  if (home) await rm(home, { recursive: true, force: true });
  home = undefined;
});

async function startApi(env: Record<string, string> = {}, stateHome?: string): Promise<{ harness: GatewayHarness; client: OpenAI; baseURL: string }> {
  harness = await startGatewayHarness({ HERMES_API_SERVER_KEY: KEY, HERMES_HTTP_PORT: "0", ...env }, stateHome, { http: true });
  const address = harness.gateway.httpAddress;
  if (!address) throw new Error("the gateway serves no HTTP");
  const baseURL = `http://127.0.0.1:${address.port}/v1`;
  return { harness, client: new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0 }), baseURL };
}

/** The text of every message the model was sent in its `index`-th request. */
function modelSaw(gateway: GatewayHarness, index: number): string {
  return JSON.stringify(gateway.llm.requests[index]?.messages ?? []);
}

describe("the OpenAI-compatible API", () => {
  it("lists the one model and answers a completion with the run's usage", async () => {
    const { harness, client } = await startApi();
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(["hermes"]);

    harness.llm.enqueue({ kind: "text", text: "Paris is the capital of France.", usage: { prompt: 120, completion: 9 } });
    const completion = await client.chat.completions.create({ model: "anything-goes", messages: [{ role: "user", content: "What is the capital of France?" }] });

    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("anything-goes");
    expect(completion.choices[0]?.message.content).toBe("Paris is the capital of France.");
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    expect(completion.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 9, total_tokens: 129 });
    expect(modelSaw(harness, 0)).toContain("What is the capital of France?");
  });

  it.each([["off"], ["edit"]])("streams the answer as deltas that join to it, ending with the usage and [DONE] (HERMES_STREAMING=%s)", async (streaming) => {
    const { harness, client } = await startApi({ HERMES_STREAMING: streaming });
    const answer = "First the logs, then a restart of the service, then a look at the dashboards to be sure.";
    harness.llm.enqueue({ kind: "text", text: answer, chunks: 8, delayMsBetweenChunks: 300, usage: { prompt: 50, completion: 20 } });
    const stream = await client.chat.completions.create({
      model: "hermes",
      messages: [{ role: "user", content: "What should I do?" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta.content ?? ""));
    expect(deltas.join("")).toBe(answer);
    // Written while the model wrote it, not in one piece at the end.
    expect(deltas.filter((delta) => delta !== "").length).toBeGreaterThanOrEqual(2);
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    expect(chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason)).filter((reason) => reason !== null)).toEqual(["stop"]);
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 });
  });

  it("refuses a wrong key with OpenAI's 401 error", async () => {
    const { baseURL } = await startApi();
    const stranger = new OpenAI({ apiKey: "not-the-key", baseURL, maxRetries: 0 });
    const refusal = stranger.chat.completions.create({ model: "hermes", messages: [{ role: "user", content: "hi" }] });
    await expect(refusal).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(stranger.models.list()).rejects.toMatchObject({ status: 401, code: "invalid_api_key" });
    expect(harness?.llm.requests).toHaveLength(0);
  });

  it("answers a bad request with OpenAI's 400 error naming the field", async () => {
    const { harness, client } = await startApi();
    const refusal = client.chat.completions.create({ model: "hermes", messages: [{ role: "assistant", content: "I spoke last" }] });
    await expect(refusal).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(refusal).rejects.toMatchObject({ status: 400, param: "messages", type: "invalid_request_error" });
    expect(harness.llm.requests).toHaveLength(0);
  });

  it.each([["SQLite"], ["PostgreSQL"]])("continues a conversation server-side with X-Hermes-Session-Id: the second request sends only the new message (%s)", async (dialect) => {
    if (dialect === "PostgreSQL") database = await createTestDatabase();
    const { harness, client } = await startApi(database ? { HERMES_DATABASE_URL: database.url } : {});
    const session = { headers: { "X-Hermes-Session-Id": "conversation-42" } };
    harness.llm.enqueue({ kind: "text", text: "Nice to meet you, Ada.", usage: { prompt: 100, completion: 5 } }, { kind: "text", text: "Your name is Ada.", usage: { prompt: 200, completion: 6 } });

    const first = await client.chat.completions.create({ model: "hermes", messages: [{ role: "user", content: "My name is Ada." }] }, session);
    expect(first.choices[0]?.message.content).toBe("Nice to meet you, Ada.");
    const second = await client.chat.completions.create({ model: "hermes", messages: [{ role: "user", content: "What is my name?" }] }, session);
    expect(second.choices[0]?.message.content).toBe("Your name is Ada.");

    const seen = modelSaw(harness, 1);
    expect(seen).toContain("My name is Ada.");
    expect(seen).toContain("Nice to meet you, Ada.");
    expect(seen).toContain("What is my name?");
    // Each request's usage is its own run's, not the session's total.
    expect(second.usage).toMatchObject({ prompt_tokens: 200, completion_tokens: 6, total_tokens: 206 });
  });

  it.each([["SQLite"], ["PostgreSQL"]])("takes a stateless request's earlier messages as the history the model sees (%s)", async (dialect) => {
    if (dialect === "PostgreSQL") database = await createTestDatabase();
    const { harness, client } = await startApi(database ? { HERMES_DATABASE_URL: database.url } : {});
    harness.llm.enqueue({ kind: "text", text: "It is blue." }, { kind: "text", text: "Nothing remembered." });
    const completion = await client.chat.completions.create({
      model: "hermes",
      messages: [
        { role: "system", content: "Answer in three words." },
        { role: "user", content: "My favourite colour is blue." },
        { role: "assistant", content: "Noted: blue." },
        { role: "user", content: "What is my favourite colour?" },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe("It is blue.");
    const seen = modelSaw(harness, 0);
    for (const text of ["Answer in three words.", "My favourite colour is blue.", "Noted: blue.", "What is my favourite colour?"]) expect(seen).toContain(text);

    // Without the header, the next request is a conversation of its own.
    await client.chat.completions.create({ model: "hermes", messages: [{ role: "user", content: "And now?" }] });
    expect(modelSaw(harness, 1)).not.toContain("My favourite colour is blue.");
  });

  it("stops the run of a request whose caller went away, like /stop, and takes the session's next request", async () => {
    const { harness, client } = await startApi();
    const session = { headers: { "X-Hermes-Session-Id": "impatient" } };
    harness.llm.enqueue({ kind: "hang", afterText: "Thinking very hard" }, { kind: "text", text: "Here now." });
    const caller = new AbortController();
    const first = client.chat.completions.create({ model: "hermes", messages: [{ role: "user", content: "Take your time." }], stream: true }, { ...session, signal: caller.signal });
    const streamed: string[] = [];
    const abandoned = first.then(async (stream) => {
      for await (const chunk of stream) streamed.push(chunk.choices[0]?.delta.content ?? "");
    });
    await waitUntil(() => streamed.join("") === "Thinking very hard", "the first words to arrive");
    // The client's iteration ends quietly on its own abort.
    caller.abort();
    await abandoned;
    await waitUntil(async () => (await harness.gateway.store.inbound.unanswered("agent:main:api:dm:impatient")) === 0, "the run to stop");

    const next = await client.chat.completions.create({ model: "hermes", messages: [{ role: "user", content: "Still there?" }] }, session);
    expect(next.choices[0]?.message.content).toBe("Here now.");
  });

  it("does not run, after a restart, a request whose caller the stopped gateway had (nobody waits for its answer)", async () => {
    const { harness, client } = await startApi();
    const session = { headers: { "X-Hermes-Session-Id": "trip" } };
    harness.llm.enqueue({ kind: "hang", afterText: "Booking" }, { kind: "text", text: "Booked the next one." });
    const first = client.chat.completions.create({ model: "hermes", messages: [{ role: "user", content: "Book the flight." }] }, session).then(
      () => undefined,
      (error: unknown) => error,
    );
    await waitUntil(() => harness.llm.requests.length === 1, "the run to call the model");
    await harness.restart({ drainMs: 0 });
    expect(await first).toMatchObject({ status: 503 });
    expect(await harness.gateway.store.inbound.unanswered("agent:main:api:dm:trip")).toBe(0);

    const address = harness.gateway.httpAddress;
    const again = new OpenAI({ apiKey: KEY, baseURL: `http://127.0.0.1:${address?.port ?? 0}/v1`, maxRetries: 0 });
    const next = await again.chat.completions.create({ model: "hermes", messages: [{ role: "user", content: "Book the next one." }] }, session);
    expect(next.choices[0]?.message.content).toBe("Booked the next one.");
    expect(harness.llm.requests).toHaveLength(2);
  });

  it("answers a request over HERMES_RATE_LIMIT with OpenAI's 429 error", async () => {
    const { harness, client } = await startApi({ HERMES_RATE_LIMIT: "1" });
    harness.llm.enqueue({ kind: "text", text: "One." });
    await client.chat.completions.create({ model: "hermes", messages: [{ role: "user", content: "first" }] });
    const refusal = client.chat.completions.create({ model: "hermes", messages: [{ role: "user", content: "second" }] });
    await expect(refusal).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    expect(harness.llm.requests).toHaveLength(1);
  });

  it("answers a chat command with its output", async () => {
    const { harness, client } = await startApi();
    const reply = await client.chat.completions.create({ model: "hermes", messages: [{ role: "user", content: "/help" }] });
    expect(reply.choices[0]?.message.content).toContain("/new");
    expect(harness.llm.requests).toHaveLength(0);
  });

  it("answers a run the model failed with OpenAI's 502 error", async () => {
    const { harness, client } = await startApi();
    harness.llm.enqueue({ kind: "error", status: 400, body: { error: { message: "this model does not exist" } } });
    const failure = client.chat.completions.create({ model: "hermes", messages: [{ role: "user", content: "hello?" }] });
    await expect(failure).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    await expect(failure).rejects.toMatchObject({ status: 502, type: "server_error", code: "run_failed" });
  });
});

describe("npm start with HERMES_API_SERVER_KEY", () => {
  it("serves the API as its only platform, shown in /readyz", async () => {
    llm = await startLlmServer();
    home = await mkdtemp(path.join(os.tmpdir(), "hermes-api-app-"));
    app = startApp("gateway", { HOME: home, HERMES_HOME: path.join(home, "state"), HERMES_BASE_URL: llm.baseUrl, HERMES_MODEL: "scripted-model", HERMES_API_KEY: "test-key", HERMES_HTTP_PORT: "0", HERMES_API_SERVER_KEY: KEY });
    await app.waitFor('"msg":"gateway started"');
    const url = httpUrl(app);
    const client = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
    llm.enqueue({ kind: "text", text: "Hello from the gateway." });
    const completion = await client.chat.completions.create({ model: "hermes", messages: [{ role: "user", content: "Hi" }] });
    expect(completion.choices[0]?.message.content).toBe("Hello from the gateway.");
    const ready = (await (await fetch(`${url}/readyz`)).json()) as { status: string; platforms: Record<string, { state: string }> };
    expect(ready).toMatchObject({ status: "ready", platforms: { api: { state: "connected" } } });
    expect(app.stderr()).not.toContain(KEY);
    expect(app.stderr()).not.toContain("No chat platform is configured");
  });
});

describe("the OpenAI-compatible API with BullMQ workers", () => {
  it("answers plain and streamed requests run by a worker process", async () => {
    redis = await startRedis();
    home = await mkdtemp(path.join(os.tmpdir(), "hermes-api-bullmq-"));
    const { harness, client } = await startApi({ REDIS_URL: redis.url }, home);
    app = startApp("worker", { HOME: home, HERMES_HOME: home, HERMES_BASE_URL: harness.llm.baseUrl, HERMES_MODEL: "scripted-model", HERMES_API_KEY: "test-key", REDIS_URL: redis.url });
    await app.waitFor("worker started");
    const streamedAnswer = "Streamed from a worker, word by word, as the model wrote it.";
    harness.llm.enqueue({ kind: "text", text: "Worked on a worker.", usage: { prompt: 30, completion: 4 } }, { kind: "text", text: streamedAnswer, chunks: 8, delayMsBetweenChunks: 300 });

    const plain = await client.chat.completions.create({ model: "hermes", messages: [{ role: "user", content: "Where do you run?" }] });
    expect(plain.choices[0]?.message.content).toBe("Worked on a worker.");
    expect(plain.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 4 });
    const stream = await client.chat.completions.create({ model: "hermes", messages: [{ role: "user", content: "And streamed?" }], stream: true });
    const deltas: string[] = [];
    for await (const chunk of stream) deltas.push(chunk.choices[0]?.delta.content ?? "");
    expect(deltas.join("")).toBe(streamedAnswer);
    // The worker published it as it was written (HERMES_STREAMING is off), through Redis to the gateway.
    expect(deltas.filter((delta) => delta !== "").length).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
