import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { silentLogger } from "@hermes/agent";
import { openStore, type Store } from "@hermes/store";
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { InboundMessage } from "../core/inbound.js";
import { GatewayHttpServer } from "../http/http-server.js";
import { ApiAdapter } from "./api-adapter.js";
import { API_REQUEST_TIMEOUT_MS, apiServerFor } from "./api-server.js";
import { chatCompletionsHandler, modelsHandler } from "./chat-completions.js";

const KEY = "unit-test-key-0123456789";

let dir: string;
let store: Store;
let http: GatewayHttpServer;
let adapter: ApiAdapter;
let base: string;
let received: InboundMessage[];
let stopped: string[];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-api-routes-"));
  store = await openStore({ file: path.join(dir, "state.db") });
  received = [];
  stopped = [];
  adapter = new ApiAdapter({ store, stopRun: async (key) => void stopped.push(key), logger: silentLogger });
  http = new GatewayHttpServer({ host: "127.0.0.1", port: 0, logger: silentLogger });
  http.route("GET", "/v1/models", modelsHandler({ key: KEY, now: () => 1_700_000_000_000 }));
  // A run that never answers: only the timeout ends the request.
  http.streamingRoute("POST", "/v1/chat/completions", chatCompletionsHandler({ key: KEY, adapter, store, logger: silentLogger, timeoutMs: 300 }));
  const address = await http.start();
  base = `http://127.0.0.1:${address.port}/v1`;
});
afterEach(async () => {
  await http.stop();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function startAdapter(): Promise<void> {
  await adapter.start({
    reportStatus: () => {},
    receive: async (message) => {
      received.push(message);
      await store.inbound.recordIfNew({ platform: message.platform, messageId: message.messageId, payload: JSON.stringify(message), status: "queued" });
    },
  });
}

function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

const hello = { model: "hermes", messages: [{ role: "user", content: "hello" }] };

describe("the /v1 handlers", () => {
  it("list the model behind the key only", async () => {
    const listed = await fetch(`${base}/models`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(await listed.json()).toEqual({ object: "list", data: [{ id: "hermes", object: "model", created: 1_700_000_000, owned_by: "hermes" }] });
    const refused = await fetch(`${base}/models`, { headers: { authorization: "Bearer nope" } });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { type: "invalid_request_error", code: "invalid_api_key" } });
  });

  it("answer 503 while the adapter is not started (a standby), after checking the key", async () => {
    expect((await post(hello, { authorization: "Bearer wrong" })).status).toBe(401);
    const response = await post(hello);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: { type: "server_error", code: "unavailable" } });
    // Nothing ran: a client may try again (the standby may be elected meanwhile).
    expect(response.headers.get("x-should-retry")).toBeNull();
  });

  it("refuse a body that is not JSON and a malformed session id with 400, handing nothing on", async () => {
    await startAdapter();
    const broken = await post("{not json");
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { message: "The request body is not valid JSON.", type: "invalid_request_error" } });
    const badSession = await post(hello, { "x-hermes-session-id": "a:b/c" });
    expect(badSession.status).toBe(400);
    expect(received).toHaveLength(0);
  });

  it("answer 504 when no answer comes in time, stopping the run", async () => {
    await startAdapter();
    const response = await post(hello, { "x-hermes-session-id": "slow" });
    expect(response.status).toBe(504);
    expect(await response.json()).toMatchObject({ error: { type: "server_error", code: "timeout" } });
    expect(received.map((message) => ({ platform: message.platform, chat: message.chat, text: message.text }))).toEqual([{ platform: "api", chat: { id: "slow", type: "dm" }, text: "hello" }]);
    expect(stopped).toEqual(["agent:main:api:dm:slow"]);
  });

  it("tell the official client not to send a request again whose run may have happened, and time out before it does", async () => {
    await startAdapter();
    const client = new OpenAI({ apiKey: KEY, baseURL: base, maxRetries: 2 });
    const failed = client.chat.completions.create({ model: "hermes", messages: [{ role: "user", content: "once only" }] }, { headers: { "x-hermes-session-id": "once" } });
    await expect(failed).rejects.toMatchObject({ status: 504, code: "timeout" });
    expect(received.map((message) => message.text)).toEqual(["once only"]);
    expect(API_REQUEST_TIMEOUT_MS).toBeLessThan(OpenAI.DEFAULT_TIMEOUT);
  });

  it("give a stateless request a fresh conversation holding the earlier messages", async () => {
    await startAdapter();
    const response = await post({ messages: [{ role: "system", content: "Be terse." }, { role: "user", content: "Earlier" }, { role: "assistant", content: "Reply" }, { role: "user", content: "Now" }], user: "bob" });
    expect(response.status).toBe(504);
    const [message] = received;
    expect(message?.user.id).toBe("bob");
    const session = await store.sessions.active(`agent:main:api:dm:${message?.chat.id ?? ""}`);
    const history = session ? await store.messages.history(session.id) : [];
    expect(history.map((entry) => entry.role)).toEqual(["user", "user", "assistant"]);
    expect(JSON.stringify(history)).toContain("Be terse.");
  });
});

describe("the API's routes on the gateway HTTP server", () => {
  it("read a big body only from a caller with the key (a stranger stays at the server's small limit)", async () => {
    const api = apiServerFor({ apiServerKey: KEY, redisUrl: undefined }, { store, logger: silentLogger, stopRun: async () => {} });
    const small = new GatewayHttpServer({ host: "127.0.0.1", port: 0, logger: silentLogger, maxBodyBytes: 1_000 });
    api?.registerRoutes(small);
    const { port } = await small.start();
    try {
      const long = { model: "hermes", messages: [{ role: "user", content: "x".repeat(5_000) }] };
      const send = (authorization: string): Promise<Response> =>
        fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: "POST", headers: { authorization, "content-type": "application/json" }, body: JSON.stringify(long) });
      expect((await send("Bearer not-the-key-at-all")).status).toBe(413);
      // Read whole and judged: the adapter is not started here, so a standby's 503.
      expect((await send(`Bearer ${KEY}`)).status).toBe(503);
    } finally {
      await small.stop();
    }
  });
});
