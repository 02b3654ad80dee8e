import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { AdapterContext, AdapterStatus, HttpHandler, InboundMessage } from "@hermes/gateway";
import { startFakeSlack, type FakeSlack } from "../../../test/fakes/slack/fake-slack.js";
import { createSlackAdapter, type SlackAdapter } from "./slack-adapter.js";

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

function context(routes: Map<string, HttpHandler> = new Map(), statuses: AdapterStatus[] = []): AdapterContext {
  return { receive: async () => {}, reportStatus: (status) => void statuses.push(status), route: (method, routePath, handler) => void routes.set(`${method} ${routePath}`, handler) };
}

async function started(settings: { signingSecret?: string; appToken?: string } = { signingSecret: "s" }): Promise<SlackAdapter> {
  const created = createSlackAdapter({ botToken: fake.botToken, apiUrl: fake.apiUrl, ...settings }, { logger: silentLogger, attachmentsDir: dir });
  await created.start(context());
  adapter = created;
  return created;
}

describe("SlackAdapter", () => {
  it("registers POST /slack/events, /slack/commands and /slack/interactivity, learns the bot's identity with one auth.test and reports itself connected", async () => {
    const routes = new Map<string, HttpHandler>();
    const statuses: AdapterStatus[] = [];
    adapter = createSlackAdapter({ botToken: fake.botToken, signingSecret: "s", apiUrl: fake.apiUrl }, { logger: silentLogger, attachmentsDir: dir });
    await adapter.start(context(routes, statuses));
    expect([...routes.keys()]).toEqual(["POST /slack/events", "POST /slack/commands", "POST /slack/interactivity"]);
    expect(fake.calls.map((c) => c.method)).toEqual(["auth.test"]);
    expect(adapter.mode).toBe("http");
    expect(statuses).toEqual([{ state: "connecting" }, { state: "connected" }]);
  });

  it("needs the gateway's HTTP server for HTTP events: reported as failed, and start throws", async () => {
    const statuses: AdapterStatus[] = [];
    const noHttp = createSlackAdapter({ botToken: fake.botToken, signingSecret: "s", apiUrl: fake.apiUrl }, { logger: silentLogger, attachmentsDir: dir });
    await expect(noHttp.start({ receive: async () => {}, reportStatus: (status) => void statuses.push(status) })).rejects.toThrow("SLACK_APP_TOKEN for Socket Mode");
    expect(statuses).toEqual([{ state: "connecting" }, { state: "failed", error: expect.stringContaining("need the gateway's HTTP server") }]);
    expect(fake.calls).toEqual([]);
  });

  it("needs a signing secret or an app token", async () => {
    const statuses: AdapterStatus[] = [];
    const neither = createSlackAdapter({ botToken: fake.botToken, apiUrl: fake.apiUrl }, { logger: silentLogger, attachmentsDir: dir });
    await expect(neither.start(context(new Map(), statuses))).rejects.toThrow("Slack needs SLACK_SIGNING_SECRET (HTTP events) or SLACK_APP_TOKEN (Socket Mode)");
    expect(statuses.map((s) => s.state)).toEqual(["connecting", "failed"]);
  });

  it("posts into the thread it is given, or the one of the message it answers", async () => {
    const slack = await started();
    expect(await slack.send({ chatId: "C1", threadId: "10.1" }, { text: "in thread", format: "markdown" })).toEqual({ ok: true, messageId: fake.posted[0]?.ts });
    await slack.send({ chatId: "C1", replyToMessageId: "11.1" }, { text: "reply", format: "markdown" });
    await slack.send({ chatId: "D1" }, { text: "dm", format: "markdown" });
    expect(fake.posted.map((p) => [p.channel, p.thread_ts])).toEqual([
      ["C1", "10.1"],
      ["C1", "11.1"],
      ["D1", undefined],
    ]);
  });

  it("sends plain text escaped, without formatting and without broadcasts", async () => {
    const slack = await started();
    await slack.send({ chatId: "D1" }, { text: "**x** <!channel> @here", format: "plain" });
    expect(fake.posted[0]).toMatchObject({ text: "**x** &lt;!channel&gt; @\u200Bhere", mrkdwn: false });
  });

  it("reports rate limits and connection trouble as retryable and refusals as final", async () => {
    const slack = await started();
    const target = { chatId: "C1", threadId: "1.1" };
    const message = { text: "hi", format: "markdown" as const };
    fake.failNext("chat.postMessage", { status: 429, retryAfterSeconds: 7 });
    expect(await slack.send(target, message)).toEqual({ ok: false, retryable: true, error: "rate limited by Slack", retryAfterMs: 7000 });
    fake.failNext("chat.postMessage", { status: 503 });
    expect(await slack.send(target, message)).toEqual({ ok: false, retryable: true, error: "Slack answered HTTP 503" });
    fake.failNext("chat.postMessage", { status: 500 });
    expect(await slack.send(target, message)).toEqual({ ok: false, retryable: true, ambiguous: true, error: "Slack answered HTTP 500" });
    fake.failNext("chat.postMessage", { error: "internal_error" });
    expect(await slack.send(target, message)).toMatchObject({ ok: false, retryable: true, ambiguous: true });
    fake.failNext("chat.postMessage", { error: "channel_not_found" });
    expect(await slack.send(target, message)).toEqual({ ok: false, retryable: false, error: "Slack refused the message: channel_not_found" });
    fake.failNext("chat.postMessage", { error: "ratelimited" });
    expect(await slack.send(target, message)).toMatchObject({ ok: false, retryable: true });
    await fake.close();
    expect(await slack.send(target, message)).toMatchObject({ ok: false, retryable: true, error: expect.stringContaining("could not reach Slack") });
  });

  it("removes the working reaction only from messages meant for the bot", async () => {
    const slack = await started();
    const base: InboundMessage = {
      platform: "slack",
      chat: { id: "C1", type: "group" },
      user: { id: "U1" },
      messageId: "C1:5.5",
      text: "x",
      attachments: [],
      mentionedBot: false,
      timestamp: 0,
      replyToId: "5.5",
    };
    await slack.markDone(base);
    expect(fake.reactions).toEqual([]);
    await slack.markDone({ ...base, mentionedBot: true });
    expect(fake.reactions).toEqual([{ action: "remove", channel: "C1", timestamp: "5.5", name: "eyes" }]);
    // A scheduled task's run in a DM answers no message of the person's.
    await slack.markDone({ ...base, chat: { id: "D1", type: "dm" }, messageId: "cron:ab12cd34:1700000000000", replyToId: "" });
    expect(fake.reactions).toHaveLength(1);
  });

  it("lets the gateway start while Socket Mode is still connecting, and takes events once it is", async () => {
    const slow = await startFakeSlack({ holdHello: true });
    const received: InboundMessage[] = [];
    const statuses: AdapterStatus[] = [];
    const socketAdapter = createSlackAdapter({ botToken: slow.botToken, appToken: slow.appToken, apiUrl: slow.apiUrl }, { logger: silentLogger, attachmentsDir: dir, startWaitMs: 5 });
    try {
      await socketAdapter.start({ receive: async (message) => void received.push(message), reportStatus: (status) => void statuses.push(status) });
      expect(statuses).toEqual([{ state: "connecting" }]);
      await slow.socket.greet();
      await slow.socket.send({ type: "event_callback", team_id: "T1", event_id: "Ev1", event: { type: "message", channel_type: "im", channel: "D1", user: "U1", text: "late hello", ts: "7.7" } });
      for (let i = 0; i < 200 && received.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(received.map((m) => m.text)).toEqual(["late hello"]);
      expect(statuses).toEqual([{ state: "connecting" }, { state: "connected" }]);
    } finally {
      await socketAdapter.stop();
      await slow.close();
    }
  });

  it("connects over Socket Mode when an app token is set, even with a signing secret", async () => {
    const slack = await started({ appToken: fake.appToken, signingSecret: "also-set" });
    expect(slack.mode).toBe("socket");
    await fake.socket.waitForConnection();
    expect(fake.calls.map((c) => c.method)).toEqual(["auth.test", "apps.connections.open"]);
  });
});
