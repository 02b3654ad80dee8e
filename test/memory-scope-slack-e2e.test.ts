import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { GatewayConfig } from "@hermes/gateway";
import { createSlackAdapter } from "@hermes/slack";
import type { RecordedRequest } from "./fakes/llm-server.js";
import { startFakeSlack, type FakeSlack } from "./fakes/slack/fake-slack.js";
import { appMention, directMessage, eventCallback, nextSlackTs, postSlackEvent } from "./fakes/slack/slack-events.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

const SIGNING_SECRET = "e2e-signing-secret";
let fake: FakeSlack | undefined;
let h: GatewayHarness | undefined;
let filesDir: string | undefined;

afterEach(async () => {
  await h?.close();
  await fake?.close();
  if (filesDir) await rm(filesDir, { recursive: true, force: true });
  h = undefined;
  fake = undefined;
  filesDir = undefined;
});

async function start(): Promise<GatewayHarness> {
  const slack = await startFakeSlack();
  fake = slack;
  slack.addUser({ id: "U_ALICE", name: "alice", displayName: "Alice" });
  slack.addUser({ id: "U_BOB", name: "bob", displayName: "Bob" });
  const dir = await mkdtemp(path.join(os.tmpdir(), "hermes-slack-mem-"));
  filesDir = dir;
  const env = { SLACK_BOT_TOKEN: slack.botToken, SLACK_API_URL: slack.apiUrl, SLACK_SIGNING_SECRET: SIGNING_SECRET, HERMES_HTTP_PORT: "0", HERMES_ALLOWED_USERS: "slack:U_ALICE,slack:U_BOB" };
  h = await startGatewayHarness(env, undefined, {
    http: true,
    adapters: (config: GatewayConfig) => {
      if (!config.slack) throw new Error("the test configuration has no Slack settings");
      return [createSlackAdapter(config.slack, { logger: silentLogger, attachmentsDir: dir })];
    },
  });
  return h;
}

async function deliver(harness: GatewayHarness, event: Record<string, unknown>, sessionKey: string): Promise<RecordedRequest[]> {
  const address = harness.gateway.httpAddress;
  if (!address) throw new Error("the gateway serves no HTTP");
  const before = harness.llm.requests.length;
  const response = await postSlackEvent(`http://127.0.0.1:${address.port}/slack/events`, eventCallback(event), { signingSecret: SIGNING_SECRET });
  expect(response.status).toBe(200);
  await harness.gateway.waitIdle(sessionKey);
  return harness.llm.requests.slice(before);
}

const systemPrompts = (requests: readonly RecordedRequest[]): string => JSON.stringify(requests.map((request) => request.messages[0]));
const everything = (requests: readonly RecordedRequest[]): string => JSON.stringify(requests.map((request) => request.body));
const remember = (target: "memory" | "user", content: string) => ({ kind: "tools" as const, calls: [{ name: "memory", arguments: { action: "add", target, content } }] });

describe("memory is scoped to the person (Slack)", () => {
  it("keeps one person's DM facts from the other; a thread's notes are the channel's, its USER.md the sender's", async () => {
    const harness = await start();
    harness.llm.enqueue(remember("user", "Alice is vegetarian"), { kind: "text", text: "Noted." });
    await deliver(harness, directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "Remember I am vegetarian" }), "agent:main:slack:dm:D_ALICE");

    harness.llm.enqueue({ kind: "text", text: "Hi Bob." });
    const bobDm = await deliver(harness, directMessage({ channel: "D_BOB", user: "U_BOB", text: "What do you know about me?" }), "agent:main:slack:dm:D_BOB");
    expect(bobDm).toHaveLength(1);
    expect(everything(bobDm)).not.toContain("vegetarian");

    // In a thread (a shared session) Alice saves a note for the channel and a fact about herself.
    const aliceThread = nextSlackTs();
    harness.llm.enqueue(remember("memory", "this channel deploys on Fridays"), remember("user", "Alice leads the release"), { kind: "text", text: "Saved both." });
    await deliver(harness, appMention({ channel: "C_GENERAL", user: "U_ALICE", text: "<@UBOT> we deploy on Fridays, and I lead the release", ts: aliceThread }), `agent:main:slack:group:C_GENERAL:${aliceThread}`);

    // Bob's new thread in the same channel gets the channel's notes, but neither of Alice's own facts.
    const bobThread = nextSlackTs();
    harness.llm.enqueue({ kind: "text", text: "On Fridays." });
    const bobs = await deliver(harness, appMention({ channel: "C_GENERAL", user: "U_BOB", text: "<@UBOT> when do we deploy?", ts: bobThread }), `agent:main:slack:group:C_GENERAL:${bobThread}`);
    expect(systemPrompts(bobs)).toContain("this channel deploys on Fridays");
    expect(everything(bobs)).not.toContain("vegetarian");
    expect(everything(bobs)).not.toContain("Alice leads the release");

    // Alice's own next DM session has both of her facts.
    harness.llm.enqueue({ kind: "text", text: "I remember." });
    const aliceDm = await deliver(harness, directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "/new" }), "agent:main:slack:dm:D_ALICE");
    expect(aliceDm).toHaveLength(0);
    const aliceAgain = await deliver(harness, directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "What do you know?" }), "agent:main:slack:dm:D_ALICE");
    expect(systemPrompts(aliceAgain)).toContain("Alice is vegetarian");
    expect(systemPrompts(aliceAgain)).toContain("Alice leads the release");
    expect(systemPrompts(aliceAgain)).not.toContain("deploys on Fridays");
  });
});
