import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { AdapterContext, HttpHandler, InboundMessage, OutboundButton } from "@hermes/gateway";
import { startFakeSlack, type FakeSlack } from "../../../test/fakes/slack/fake-slack.js";
import { postInteraction } from "../../../test/fakes/slack/slack-interactions.js";
import { serveAdapterRoutes } from "./adapter-routes.fixture.js";
import { createSlackAdapter, type SlackAdapter } from "./slack-adapter.js";

const SECRET = "interactivity-secret";

let fake: FakeSlack;
let dir: string;
let adapter: SlackAdapter | undefined;
let closeServer: (() => Promise<void>) | undefined;

beforeEach(async () => {
  fake = await startFakeSlack();
  fake.addUser({ id: "U_ALICE", name: "alice", displayName: "Alice" });
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
});

afterEach(async () => {
  await adapter?.stop();
  adapter = undefined;
  await closeServer?.();
  closeServer = undefined;
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

const BUTTONS: OutboundButton[] = [
  { label: "Approve", value: "/approve k3j4h5m6", style: "primary" },
  { label: "Deny", value: "/deny k3j4h5m6", style: "danger" },
];

async function httpAdapter(received: InboundMessage[], receive?: AdapterContext["receive"]): Promise<{ slack: SlackAdapter; base: string; routes: Map<string, HttpHandler> }> {
  const routes = new Map<string, HttpHandler>();
  const slack = createSlackAdapter({ botToken: fake.botToken, signingSecret: SECRET, apiUrl: fake.apiUrl }, { logger: silentLogger, attachmentsDir: dir });
  await slack.start({ receive: receive ?? (async (message) => void received.push(message)), reportStatus: () => {}, route: (method, routePath, handler) => void routes.set(`${method} ${routePath}`, handler) });
  adapter = slack;
  const served = await serveAdapterRoutes(routes);
  closeServer = served.close;
  return { slack, base: served.base, routes };
}

async function posted(slack: SlackAdapter, target: { chatId: string; threadId?: string }): Promise<string> {
  const result = await slack.send(target, { text: "Run `terminal`?", format: "markdown", buttons: BUTTONS });
  if (!result.ok || !result.messageId) throw new Error("the prompt was not posted");
  return result.messageId;
}

describe("Slack button presses", () => {
  it("registers POST /slack/interactivity next to /slack/events and /slack/commands", async () => {
    const { routes } = await httpAdapter([]);
    expect([...routes.keys()]).toEqual(["POST /slack/events", "POST /slack/commands", "POST /slack/interactivity"]);
  });

  it("over HTTP: a signed block_actions press reaches the gateway as the presser's message in the prompt's thread, answered 200", async () => {
    const received: InboundMessage[] = [];
    const { slack, base } = await httpAdapter(received);
    const ts = await posted(slack, { chatId: "C1", threadId: "10.1" });
    const answer = await fake.pressButton({ ts, user: "U_ALICE", value: "/deny k3j4h5m6", http: { url: `${base}/slack/interactivity`, signingSecret: SECRET } });
    expect(answer).toEqual({ via: "http", status: 200, text: "" });
    expect(received).toEqual([
      {
        platform: "slack",
        chat: { id: "C1", type: "group" },
        threadId: "10.1",
        user: { id: "U_ALICE", name: "Alice" },
        messageId: expect.stringMatching(/^act\d+\.\d+\.U_ALICE$/),
        text: "/deny k3j4h5m6",
        attachments: [],
        mentionedBot: true,
        timestamp: expect.any(Number),
        action: { messageId: ts },
      },
    ]);
    await fake.pressButton({ ts, user: "U_ALICE", index: 0, http: { url: `${base}/slack/interactivity`, signingSecret: SECRET } });
    expect(received.map((message) => message.text)).toEqual(["/deny k3j4h5m6", "/approve k3j4h5m6"]);
    expect(new Set(received.map((message) => message.messageId)).size).toBe(2);
  });

  it("over HTTP: takes a press sent to /slack/events too (Bolt's default puts every Request URL there)", async () => {
    const received: InboundMessage[] = [];
    const { slack, base } = await httpAdapter(received);
    const ts = await posted(slack, { chatId: "D_ALICE" });
    expect(await fake.pressButton({ ts, user: "U_ALICE", index: 1, http: { url: `${base}/slack/events`, signingSecret: SECRET } })).toEqual({ via: "http", status: 200, text: "" });
    expect(received.map((message) => [message.text, message.action?.messageId])).toEqual([["/deny k3j4h5m6", ts]]);
  });

  it("over HTTP: refuses a forged or unsigned press with 401 and hands nothing over", async () => {
    const received: InboundMessage[] = [];
    const { slack, base } = await httpAdapter(received);
    const ts = await posted(slack, { chatId: "D1" });
    const url = `${base}/slack/interactivity`;
    expect(await fake.pressButton({ ts, user: "U_ALICE", http: { url, signingSecret: SECRET, signature: "forged" } })).toMatchObject({ status: 401 });
    expect(await fake.pressButton({ ts, user: "U_ALICE", http: { url, signingSecret: SECRET, signature: "missing" } })).toMatchObject({ status: 401 });
    expect(received).toEqual([]);
    expect(slack.refusedRequests()).toEqual({ bad_signature: 1, missing_signature: 1, stale_timestamp: 0 });
  });

  it("over HTTP: answers other interactions 200 and ignores them; an unreadable payload is 400; a press that could not be saved is 500", async () => {
    const received: InboundMessage[] = [];
    let failing = false;
    const { base } = await httpAdapter(received, async (message) => {
      if (failing) throw new Error("store is down");
      received.push(message);
    });
    const url = `${base}/slack/interactivity`;
    expect(await postInteraction(url, { type: "view_submission", user: { id: "U_ALICE" }, view: {} }, { signingSecret: SECRET })).toEqual({ status: 200, text: "" });
    expect(await postInteraction(url, { type: "block_actions", user: { id: "U_ALICE" }, actions: [{ type: "static_select", action_id: "x" }] }, { signingSecret: SECRET })).toEqual({ status: 200, text: "" });
    expect((await postInteraction(url, "not an object", { signingSecret: SECRET })).status).toBe(400);
    expect(received).toEqual([]);
    failing = true;
    const press = { type: "block_actions", user: { id: "U_ALICE" }, channel: { id: "D1" }, container: { type: "message", message_ts: "5.5", channel_id: "D1" }, actions: [{ type: "button", action_id: "hermes_btn_0", value: "/approve x", action_ts: "6.6" }] };
    expect((await postInteraction(url, press, { signingSecret: SECRET })).status).toBe(500);
  });

  it("over Socket Mode: an interactive envelope is handed over as a press in the DM and then acknowledged", async () => {
    const received: InboundMessage[] = [];
    const slack = createSlackAdapter({ botToken: fake.botToken, appToken: fake.appToken, apiUrl: fake.apiUrl }, { logger: silentLogger, attachmentsDir: dir });
    adapter = slack;
    await slack.start({ receive: async (message) => void received.push(message), reportStatus: () => {} });
    await fake.socket.waitForConnection();
    const ts = await posted(slack, { chatId: "D_ALICE" });
    const answer = await fake.pressButton({ ts, user: "U_ALICE", value: "/approve k3j4h5m6" });
    if (answer.via !== "socket") throw new Error("the press did not go over the socket");
    expect(fake.socket.acks).toContain(answer.envelopeId);
    expect(received).toEqual([
      expect.objectContaining({ chat: { id: "D_ALICE", type: "dm" }, user: { id: "U_ALICE", name: "Alice" }, text: "/approve k3j4h5m6", mentionedBot: true, action: { messageId: ts } }),
    ]);
    expect(received[0]?.threadId).toBeUndefined();
  });
});
