import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { GatewayConfig } from "@hermes/gateway";
import { createSlackAdapter, type RefusalReason, type SlackAdapter } from "@hermes/slack";
import { startFakeSlack, type FakeSlack } from "./fakes/slack/fake-slack.js";
import { appMention, channelMessage, directMessage, eventCallback, nextSlackTs, postSlackEvent, type DeliveryOptions } from "./fakes/slack/slack-events.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

const SIGNING_SECRET = "e2e-signing-secret";
const DM_KEY = "agent:main:slack:dm:D_ALICE";

let fake: FakeSlack | undefined;
let h: GatewayHarness | undefined;
let adapter: SlackAdapter;
let attachmentsDir: string | undefined;
let refusedReasons: RefusalReason[] = [];

afterEach(async () => {
  await h?.close();
  await fake?.close();
  if (attachmentsDir) await rm(attachmentsDir, { recursive: true, force: true });
  h = undefined;
  fake = undefined;
  attachmentsDir = undefined;
});

interface StartOptions {
  socketMode?: boolean;
  maxAttachmentBytes?: number;
}

async function start(options: StartOptions = {}): Promise<{ fake: FakeSlack; h: GatewayHarness }> {
  const slack = await startFakeSlack();
  fake = slack;
  slack.addUser({ id: "U_ALICE", name: "alice", displayName: "Alice" });
  slack.addUser({ id: "U_BOB", name: "bob", realName: "Bob Builder" });
  const dir = await mkdtemp(path.join(os.tmpdir(), "hermes-slack-files-"));
  attachmentsDir = dir;
  refusedReasons = [];
  const transport: Record<string, string> = options.socketMode ? { SLACK_APP_TOKEN: slack.appToken } : { SLACK_SIGNING_SECRET: SIGNING_SECRET };
  const env: Record<string, string> = { SLACK_BOT_TOKEN: slack.botToken, SLACK_API_URL: slack.apiUrl, HERMES_HTTP_PORT: "0", HERMES_ALLOWED_USERS: "slack:U_ALICE,slack:U_BOB", ...transport };
  const harness = await startGatewayHarness(env, undefined, {
    http: !options.socketMode,
    adapters: (config: GatewayConfig) => {
      if (!config.slack) throw new Error("the test configuration has no Slack settings");
      adapter = createSlackAdapter(config.slack, {
        logger: silentLogger,
        attachmentsDir: dir,
        maxAttachmentBytes: options.maxAttachmentBytes,
        onRequestRefused: (reason) => refusedReasons.push(reason),
      });
      return [adapter];
    },
  });
  h = harness;
  return { fake: slack, h: harness };
}

function eventsUrl(harness: GatewayHarness): string {
  const address = harness.gateway.httpAddress;
  if (!address) throw new Error("the gateway serves no HTTP");
  return `http://127.0.0.1:${address.port}/slack/events`;
}

function deliver(harness: GatewayHarness, payload: unknown, options: Partial<DeliveryOptions> = {}): Promise<{ status: number; text: string }> {
  return postSlackEvent(eventsUrl(harness), payload, { signingSecret: SIGNING_SECRET, ...options });
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function threadKey(channel: string, ts: string): string {
  return `agent:main:slack:group:${channel}:${ts}`;
}

function posts(slack: FakeSlack): [string, string | undefined, string][] {
  return slack.posted.map((p) => [p.channel, p.thread_ts, p.text]);
}

describe("Slack adapter end to end (real Bolt, fake Web API, signed events)", () => {
  it("answers a DM through a tool call, with a reaction while it works that is removed when done", async () => {
    const { fake, h } = await start();
    h.llm.enqueue({ kind: "tools", calls: [{ name: "think", arguments: { thought: "France → Paris" } }] }, { kind: "text", text: "The capital is **Paris**." });
    const ts = nextSlackTs();
    const response = await deliver(h, eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "What is the capital of France?", ts })));
    expect(response.status).toBe(200);
    await h.gateway.waitIdle(DM_KEY);

    expect(fake.posted).toEqual([{ channel: "D_ALICE", text: "The capital is *Paris*.", mrkdwn: true, ts: expect.any(String) }]);
    expect(h.llm.requests).toHaveLength(2);
    expect(JSON.stringify(h.llm.requests[0]?.messages)).toContain("What is the capital of France?");
    expect(JSON.stringify(h.llm.requests[1]?.messages)).toContain('"role":"tool"');
    // The gateway calls markDone once the run settles, which removes the reaction.
    await waitFor(() => fake.reactions.length >= 2, "the working reaction added and removed");
    expect(fake.reactions).toEqual([
      { action: "add", channel: "D_ALICE", timestamp: ts, name: "eyes" },
      { action: "remove", channel: "D_ALICE", timestamp: ts, name: "eyes" },
    ]);
  });

  it("answers a channel mention in a new thread and keeps that thread's session for replies without a mention", async () => {
    const { fake, h } = await start();
    h.llm.enqueue({ kind: "text", text: "It is 4." }, { kind: "text", text: "Doubled, it is 8." });
    const mentionTs = nextSlackTs();
    await deliver(h, eventCallback(appMention({ channel: "C_GENERAL", user: "U_ALICE", text: "<@UBOT> what is 2+2?", ts: mentionTs })));
    await h.gateway.waitIdle(threadKey("C_GENERAL", mentionTs));
    expect(posts(fake)).toEqual([["C_GENERAL", mentionTs, "It is 4."]]);

    // Chatter in a thread the bot is not part of is left alone.
    await deliver(h, eventCallback(channelMessage({ channel: "C_GENERAL", user: "U_BOB", text: "unrelated", threadTs: nextSlackTs() })));
    const replyTs = nextSlackTs();
    await deliver(h, eventCallback(channelMessage({ channel: "C_GENERAL", user: "U_BOB", text: "and doubled?", ts: replyTs, threadTs: mentionTs, parentUserId: "U_ALICE" })));
    await h.gateway.waitIdle(threadKey("C_GENERAL", mentionTs));

    expect(posts(fake)).toEqual([
      ["C_GENERAL", mentionTs, "It is 4."],
      ["C_GENERAL", mentionTs, "Doubled, it is 8."],
    ]);
    expect(h.llm.requests).toHaveLength(2);
    const followUp = JSON.stringify(h.llm.requests[1]?.messages);
    expect(followUp).toContain("[Alice] what is 2+2?");
    expect(followUp).toContain("It is 4.");
    expect(followUp).toContain("[Bob Builder] and doubled?");
    // Each addressed message gets the working reaction, removed again once it is answered.
    await waitFor(() => fake.reactions.length === 4, "both working reactions added and removed");
    expect(fake.reactions.filter((r) => r.action === "add").map((r) => r.timestamp)).toEqual([mentionTs, replyTs]);
    expect(fake.reactions.filter((r) => r.action === "remove").map((r) => r.timestamp).sort()).toEqual([mentionTs, replyTs].sort());
  });

  it("refuses forged, stale and unsigned requests and counts them", async () => {
    const { fake, h } = await start();
    const payload = eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "let me in" }));
    expect((await deliver(h, payload, { signature: "forged" })).status).toBe(401);
    // Genuinely signed, but six minutes ago: a replay.
    expect((await deliver(h, payload, { timestampSeconds: Math.floor(Date.now() / 1000) - 6 * 60 })).status).toBe(401);
    expect((await deliver(h, payload, { signature: "missing" })).status).toBe(401);

    expect(adapter.refusedRequests()).toEqual({ bad_signature: 1, stale_timestamp: 1, missing_signature: 1 });
    expect(refusedReasons).toEqual(["bad_signature", "stale_timestamp", "missing_signature"]);
    expect(await h.gateway.store.inbound.recent(10)).toEqual([]);
    expect(h.llm.requests).toHaveLength(0);
    expect(fake.posted).toEqual([]);
  });

  it("answers url_verification with the challenge", async () => {
    const { h } = await start();
    const response = await deliver(h, { token: "unused", challenge: "challenge-123", type: "url_verification" });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toEqual({ challenge: "challenge-123" });
  });

  it("acknowledges Slack's retries of an event but answers it once", async () => {
    const { fake, h } = await start();
    h.llm.enqueue({ kind: "text", text: "Only once." }, { kind: "text", text: "Twice?!" });
    const payload = eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "hello" }));
    const [first, retry] = await Promise.all([deliver(h, payload), deliver(h, payload, { retryNum: 1, retryReason: "http_timeout" })]);
    const late = await deliver(h, payload, { retryNum: 2, retryReason: "http_error" });
    expect([first.status, retry.status, late.status]).toEqual([200, 200, 200]);
    await h.gateway.waitIdle(DM_KEY);

    expect(fake.posted.map((p) => p.text)).toEqual(["Only once."]);
    expect(h.llm.requests).toHaveLength(1);
  });

  it("answers a message that arrives as both message and app_mention once", async () => {
    const { fake, h } = await start();
    h.llm.enqueue({ kind: "text", text: "Hello Alice." }, { kind: "text", text: "Hello again?!" });
    const ts = nextSlackTs();
    const fields = { channel: "C_GENERAL", user: "U_ALICE", text: "<@UBOT> hello", ts };
    const statuses = await Promise.all([deliver(h, eventCallback(channelMessage(fields))), deliver(h, eventCallback(appMention(fields)))]);
    expect(statuses.map((s) => s.status)).toEqual([200, 200]);
    await h.gateway.waitIdle(threadKey("C_GENERAL", ts));

    expect(posts(fake)).toEqual([["C_GENERAL", ts, "Hello Alice."]]);
    expect(h.llm.requests).toHaveLength(1);
    await waitFor(() => fake.reactions.length > 0, "the working reaction");
    expect(fake.reactions.filter((r) => r.action === "add")).toHaveLength(1);
  });

  it("neutralises broadcasts and mentions in the model's answer", async () => {
    const { fake, h } = await start();
    h.llm.enqueue({ kind: "text", text: "<!channel> <!here|here> Heads up @everyone & @here: ping <@U_BOB> about **the deploy**" });
    await deliver(h, eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "announce it" })));
    await h.gateway.waitIdle(DM_KEY);

    const text = fake.posted[0]?.text ?? "";
    expect(text).not.toMatch(/<!|<@/);
    expect(text).not.toMatch(/@(channel|here|everyone)\b/);
    expect(text).toContain("&lt;!channel&gt;");
    expect(text).toContain("&amp;");
    expect(text).toContain("*the deploy*");
  });

  it("splits a long answer into several messages in the thread", async () => {
    const { fake, h } = await start();
    const paragraphs = Array.from({ length: 10 }, (_, i) => `Paragraph ${i + 1}: ${"lorem ipsum dolor sit amet ".repeat(40).trim()}.`);
    h.llm.enqueue({ kind: "text", text: paragraphs.join("\n\n") });
    const ts = nextSlackTs();
    await deliver(h, eventCallback(appMention({ channel: "C_GENERAL", user: "U_ALICE", text: "<@UBOT> write a lot", ts })));
    await h.gateway.waitIdle(threadKey("C_GENERAL", ts));

    expect(fake.posted.length).toBeGreaterThanOrEqual(3);
    for (const post of fake.posted) {
      expect(post.thread_ts).toBe(ts);
      expect(post.text.length).toBeLessThanOrEqual(4_000);
    }
    const all = fake.posted.map((p) => p.text).join("\n");
    for (let i = 1; i <= 10; i += 1) expect(all).toContain(`Paragraph ${i}:`);
  });

  it("downloads a shared file with the bot token and tells the agent about one that is too large", async () => {
    const { fake, h } = await start({ maxAttachmentBytes: 1024 });
    const small = fake.addFile({ name: "notes.txt", mimetype: "text/plain", content: "remember the milk" });
    const large = fake.addFile({ name: "dump.bin", mimetype: "application/octet-stream", content: Buffer.alloc(4096) });
    h.llm.enqueue({ kind: "text", text: "Got your notes." });
    await deliver(h, eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "see attached", files: [small, large] })));
    await h.gateway.waitIdle(DM_KEY);

    // Named after the message it came with (channel and ts), so the same file shared elsewhere gets a copy of its own.
    const names = await readdir(attachmentsDir ?? "");
    expect(names).toEqual([expect.stringMatching(new RegExp(`^slack-D_ALICE_\\d+\\.\\d+-${small.id}-notes\\.txt$`))]);
    const saved = path.join(attachmentsDir ?? "", names[0] ?? "");
    expect(await readFile(saved, "utf8")).toBe("remember the milk");
    expect(fake.downloads).toEqual([{ fileId: small.id, authorization: `Bearer ${fake.botToken}` }]);
    const seen = JSON.stringify(h.llm.requests[0]?.messages);
    expect(seen).toContain(`saved at ${saved}`);
    expect(seen).toContain('The file \\"dump.bin\\" (4 KB) was not downloaded');
    expect(fake.posted.map((p) => p.text)).toEqual(["Got your notes."]);
  });

  it("works over Socket Mode, acknowledging envelopes and answering a retried event once", async () => {
    const { fake, h } = await start({ socketMode: true });
    h.llm.enqueue({ kind: "text", text: "Hello over the socket." }, { kind: "text", text: "Second answer." });
    await fake.socket.waitForConnection();
    const payload = eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "hi socket" }));
    await Promise.all([fake.socket.send(payload), fake.socket.send(payload, { retryAttempt: 1, retryReason: "timeout" })]);
    await waitFor(() => fake.posted.length === 1, "the first answer");
    await fake.socket.send(eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "and again" })));
    await waitFor(() => fake.posted.length === 2, "the second answer");
    await h.gateway.waitIdle(DM_KEY);

    expect(fake.posted.map((p) => p.text)).toEqual(["Hello over the socket.", "Second answer."]);
    expect(h.llm.requests).toHaveLength(2);
    expect(fake.socket.acks).toHaveLength(3);
    expect(fake.calls.filter((c) => c.method === "apps.connections.open").map((c) => c.token)).toEqual([fake.appToken]);
  });
});
