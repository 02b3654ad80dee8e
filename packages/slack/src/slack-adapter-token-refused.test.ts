import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import { startFakeSlack, type FakeSlack } from "../../../test/fakes/slack/fake-slack.js";
import { recordingContext, stateRuns, type RecordingContext } from "../../../test/support/recording-context.js";
import { slackRequestSignature } from "./request-signature.js";
import type { RetryPolicy } from "./retry-policy.js";
import { createSlackAdapter, type SlackAdapter } from "./slack-adapter.js";

const SECRET = "token-secret";
/** Short pauses so the tests see several checks; the doubling and the cap are those of production. */
const FAST_RETRY = { baseMs: 10, maxMs: 40 };
const REFUSED = "Slack refused SLACK_BOT_TOKEN (invalid_auth)";
const REFUSED_SEND = { ok: false, retryable: false, error: "Slack refused the message: invalid_auth" };

let fake: FakeSlack;
let dir: string;
let adapter: SlackAdapter | undefined;

beforeEach(async () => {
  fake = await startFakeSlack();
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
});

afterEach(async () => {
  await adapter?.stop();
  adapter = undefined;
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

async function started(mode: "http" | "socket", retry: Partial<RetryPolicy> = FAST_RETRY): Promise<{ slack: SlackAdapter; ctx: RecordingContext }> {
  const ctx = recordingContext();
  const events = mode === "http" ? { signingSecret: SECRET } : { appToken: fake.appToken };
  const slack = createSlackAdapter({ botToken: fake.botToken, apiUrl: fake.apiUrl, ...events }, { logger: silentLogger, attachmentsDir: dir, retry });
  adapter = slack;
  await slack.start(ctx);
  await ctx.reported("connected");
  return { slack, ctx };
}

function callsOf(method: string): number {
  return fake.calls.filter((c) => c.method === method).length;
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000; i += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Slack refuses the bot token everywhere it is used; the returned function accepts it again. */
function refuseBotToken(error = "invalid_auth"): () => void {
  const accepts = ["auth.test", "chat.postMessage", "reactions.add", "reactions.remove"].map((method) => fake.failEvery(method, { error }));
  return () => accepts.forEach((accept) => accept());
}

const reply = (slack: SlackAdapter, text = "answer") => slack.send({ chatId: "D1" }, { text, format: "plain" });

describe("SlackAdapter: the bot token refused while running", () => {
  it("with HTTP events, a refused reply turns it retrying with the cause until auth.test accepts the token again", async () => {
    const { slack, ctx } = await started("http");
    const accept = refuseBotToken();
    expect(await reply(slack)).toEqual(REFUSED_SEND);
    expect(ctx.statuses[2]).toEqual({ state: "retrying", error: REFUSED, retryAt: expect.any(Number) });
    await waitFor(() => callsOf("auth.test") >= 3, "auth.test asked again");
    expect(ctx.statuses.slice(2).every((s) => s.state === "retrying" && s.error === REFUSED)).toBe(true);
    accept();
    await ctx.reported("connected", 2);
    expect(stateRuns(ctx.statuses)).toEqual(["connecting", "connected", "retrying", "connected"]);
    expect(await reply(slack, "works again")).toMatchObject({ ok: true });
  });

  it("checks the token once for a burst of refused replies", async () => {
    const { slack, ctx } = await started("http");
    const accept = refuseBotToken();
    const releaseCheck = fake.holdNext("auth.test");
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => reply(slack, `part ${n}`)));
    expect(results).toEqual(Array(5).fill(REFUSED_SEND));
    await waitFor(() => callsOf("auth.test") === 2, "the check under way");
    expect(ctx.statuses.map((s) => s.state)).toEqual(["connecting", "connected", "retrying"]);
    accept();
    releaseCheck();
    await ctx.reported("connected", 2);
    expect(callsOf("auth.test")).toBe(2);
    expect(ctx.statuses.map((s) => s.state)).toEqual(["connecting", "connected", "retrying", "connected"]);
  });

  it("notices the token refused on the working reaction too", async () => {
    const { ctx } = await started("http");
    const accept = refuseBotToken("token_revoked");
    const handle = ctx.routes.get("POST /slack/events");
    if (!handle) throw new Error("no /slack/events route");
    const rawBody = Buffer.from(JSON.stringify({ type: "event_callback", team_id: "T1", event_id: "EvT1", event: { type: "message", channel_type: "im", channel: "D1", user: "U1", text: "hi", ts: "1700000001.000100" } }));
    const ts = String(Math.floor(Date.now() / 1000));
    expect((await handle({ headers: { "content-type": "application/json", "x-slack-request-timestamp": ts, "x-slack-signature": slackRequestSignature(SECRET, ts, rawBody) }, rawBody })).status).toBe(200);
    await ctx.reported("retrying");
    expect(ctx.statuses[2]).toMatchObject({ state: "retrying", error: "Slack refused SLACK_BOT_TOKEN (token_revoked)" });
    accept();
    await ctx.reported("connected", 2);
    expect(ctx.received.map((m) => m.text)).toEqual(["hi"]);
  });

  it("in Socket Mode, stays retrying through a reconnect of the socket until the bot token is accepted", async () => {
    const { slack, ctx } = await started("socket");
    const accept = refuseBotToken();
    expect(await reply(slack)).toEqual(REFUSED_SEND);
    await fake.socket.dropConnections();
    await waitFor(() => fake.socket.greetings === 2 && ctx.statuses.at(-1)?.error === REFUSED && ctx.statuses.some((s) => s.error === "the Socket Mode connection closed"), "the reconnect");
    // The socket is up again on the app token, but replies still fail.
    expect(ctx.statuses.filter((s) => s.state === "connected")).toHaveLength(1);
    accept();
    await ctx.reported("connected", 2);
    expect(stateRuns(ctx.statuses)).toEqual(["connecting", "connected", "retrying", "connected"]);
  });

  it("stops at once while waiting to check the token again, and reports nothing after", async () => {
    const { slack, ctx } = await started("http", { baseMs: 60_000, maxMs: 60_000 });
    refuseBotToken();
    await reply(slack);
    await ctx.reported("retrying", 2);
    await slack.stop();
    const checks = callsOf("auth.test");
    const reports = ctx.statuses.length;
    await reply(slack);
    expect(callsOf("auth.test")).toBe(checks);
    expect(ctx.statuses).toHaveLength(reports);
  });
});
