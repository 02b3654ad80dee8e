import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { GatewayConfig } from "@hermes/gateway";
import { createSlackAdapter, type SlackAdapter } from "@hermes/slack";
import { startFakeSlack, type FakeSlack, type SlashReply } from "./fakes/slack/fake-slack.js";
import { directMessage, eventCallback, postSlackEvent, postSlashCommand, type DeliveryOptions, type SlashCommandFields } from "./fakes/slack/slack-events.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

const SIGNING_SECRET = "e2e-signing-secret";
const DM_KEY = "agent:main:slack:dm:D_ALICE";

let fake: FakeSlack | undefined;
let h: GatewayHarness | undefined;
let adapter: SlackAdapter | undefined;
let attachmentsDir: string | undefined;

afterEach(async () => {
  await h?.close();
  await fake?.close();
  if (attachmentsDir) await rm(attachmentsDir, { recursive: true, force: true });
  h = undefined;
  fake = undefined;
  adapter = undefined;
  attachmentsDir = undefined;
});

async function start(options: { socketMode?: boolean } = {}): Promise<{ fake: FakeSlack; h: GatewayHarness }> {
  const slack = await startFakeSlack();
  fake = slack;
  const dir = await mkdtemp(path.join(os.tmpdir(), "hermes-slack-slash-"));
  attachmentsDir = dir;
  const transport: Record<string, string> = options.socketMode ? { SLACK_APP_TOKEN: slack.appToken } : { SLACK_SIGNING_SECRET: SIGNING_SECRET };
  const env = { SLACK_BOT_TOKEN: slack.botToken, SLACK_API_URL: slack.apiUrl, HERMES_HTTP_PORT: "0", HERMES_ALLOWED_USERS: "slack:U_ALICE", ...transport };
  const harness = await startGatewayHarness(env, undefined, {
    http: !options.socketMode,
    adapters: (config: GatewayConfig) => {
      if (!config.slack) throw new Error("the test configuration has no Slack settings");
      adapter = createSlackAdapter(config.slack, { logger: silentLogger, attachmentsDir: dir });
      return [adapter];
    },
  });
  h = harness;
  return { fake: slack, h: harness };
}

function url(harness: GatewayHarness, pathname: string): string {
  const address = harness.gateway.httpAddress;
  if (!address) throw new Error("the gateway serves no HTTP");
  return `http://127.0.0.1:${address.port}${pathname}`;
}

function slash(harness: GatewayHarness, fields: Omit<SlashCommandFields, "responseUrl"> & { responseUrl?: string }, options: Partial<DeliveryOptions> = {}): Promise<{ status: number; text: string }> {
  if (!fake) throw new Error("the fake Slack is not running");
  const responseUrl = fields.responseUrl ?? fake.responseUrl(fields.triggerId ?? "cmd");
  return postSlashCommand(url(harness, "/slack/commands"), { ...fields, responseUrl }, { signingSecret: SIGNING_SECRET, ...options });
}

async function replyTo(slack: FakeSlack, id: string): Promise<SlashReply> {
  for (let i = 0; i < 500; i += 1) {
    const reply = slack.slashReplies.find((r) => r.id === id);
    if (reply) return reply;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for the reply to ${id}`);
}

describe("Slack slash commands at POST /slack/commands (real Bolt adapter, fake Slack)", () => {
  it("refuses unsigned, forged and stale commands with 401 and runs nothing", async () => {
    const { fake, h } = await start();
    const fields = { channel: "D_ALICE", user: "U_ALICE", text: "new", triggerId: "t-forged" };
    expect((await slash(h, fields, { signature: "forged" })).status).toBe(401);
    expect((await slash(h, fields, { signature: "missing" })).status).toBe(401);
    expect((await slash(h, fields, { timestampSeconds: Math.floor(Date.now() / 1000) - 6 * 60 })).status).toBe(401);
    expect(adapter?.refusedRequests()).toEqual({ bad_signature: 1, stale_timestamp: 1, missing_signature: 1 });
    expect(await h.gateway.store.inbound.recent(10)).toEqual([]);
    expect(fake.slashReplies).toEqual([]);
  });

  it("answers /hermes status through the response_url, ephemerally, with the status text of the DM's session", async () => {
    const { fake, h } = await start();
    h.llm.enqueue({ kind: "text", text: "Hi Alice." });
    await postSlackEvent(url(h, "/slack/events"), eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "hello" })), { signingSecret: SIGNING_SECRET });
    await h.gateway.waitIdle(DM_KEY);

    const response = await slash(h, { channel: "D_ALICE", user: "U_ALICE", text: "status", triggerId: "t-status" });
    expect(response).toEqual({ status: 200, text: "" });
    const reply = await replyTo(fake, "t-status");
    expect(reply.body.response_type).toBe("ephemeral");
    expect(String(reply.body.text)).toMatch(/^Conversation [0-9a-f]{8} — started /);
    expect(String(reply.body.text)).toContain("Messages: 2; model: scripted-model; idle");
    // The command's output went only to the response_url; the channel has the agent's answer alone.
    expect(fake.posted.map((p) => p.text)).toEqual(["Hi Alice."]);
  });

  it("starts a new session with /hermes new", async () => {
    const { fake, h } = await start();
    h.llm.enqueue({ kind: "text", text: "Hi Alice." });
    await postSlackEvent(url(h, "/slack/events"), eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "hello" })), { signingSecret: SIGNING_SECRET });
    await h.gateway.waitIdle(DM_KEY);
    const before = await h.gateway.store.sessions.active(DM_KEY);

    await slash(h, { channel: "D_ALICE", user: "U_ALICE", text: "new", triggerId: "t-new" });
    expect((await replyTo(fake, "t-new")).body.text).toBe("Started a new conversation. The previous one is kept and can still be searched.");
    expect(before).toBeDefined();
    expect((await h.gateway.store.sessions.active(DM_KEY))?.id).not.toBe(before?.id);
  });

  it("answers an unknown command in a channel, and a bare /hermes, with the unknown-command and help texts", async () => {
    const { fake, h } = await start();
    await slash(h, { channel: "C_GENERAL", user: "U_ALICE", text: "frobnicate now", triggerId: "t-unknown" });
    expect((await replyTo(fake, "t-unknown")).body.text).toBe("I don't know the command /frobnicate. Send /help to see what I can do.");
    await slash(h, { channel: "C_GENERAL", user: "U_ALICE", text: "", triggerId: "t-help" });
    expect(String((await replyTo(fake, "t-help")).body.text)).toContain("/status");
    expect(fake.posted).toEqual([]);
  });

  it("gives an unknown user the pairing reply through the response_url", async () => {
    const { fake, h } = await start();
    await slash(h, { channel: "D_EVE", user: "U_EVE", text: "status", triggerId: "t-eve" });
    const reply = await replyTo(fake, "t-eve");
    expect(reply.body.response_type).toBe("ephemeral");
    expect(String(reply.body.text)).toContain("Your pairing code:");
    expect(await h.gateway.store.sessions.active("agent:main:slack:dm:D_EVE")).toBeUndefined();
  });

  it("takes /hermes status over Socket Mode too: the envelope is confirmed and the output posted to the response_url", async () => {
    const { fake } = await start({ socketMode: true });
    await fake.socket.waitForConnection();
    const payload = { token: "unused", team_id: "T1", channel_id: "D_ALICE", user_id: "U_ALICE", command: "/hermes", text: "status", response_url: fake.responseUrl("t-socket"), trigger_id: "t-socket" };
    const envelopeId = await fake.socket.send(payload, { type: "slash_commands" });
    expect(fake.socket.acks).toContain(envelopeId);
    const reply = await replyTo(fake, "t-socket");
    expect(reply.body).toEqual({ response_type: "ephemeral", text: "No conversation yet. Model: scripted-model. Send a message to start.", mrkdwn: true });
  });

  it("refuses a signed command whose response_url is not Slack's, posting nowhere", async () => {
    const { fake, h } = await start();
    const response = await slash(h, { channel: "D_ALICE", user: "U_ALICE", text: "status", triggerId: "t-elsewhere", responseUrl: "http://127.0.0.2:9/hooks/commands/x" });
    expect(response.status).toBe(400);
    expect(await h.gateway.store.inbound.recent(10)).toEqual([]);
    expect(fake.slashReplies).toEqual([]);
  });
});
