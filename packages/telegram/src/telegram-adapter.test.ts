import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { groupChat, forumChat, startFakeTelegram, type FakeTelegram } from "../../../test/fakes/telegram/index.js";
import { recordingContext as context } from "../../../test/support/recording-context.js";
import { COMMANDS } from "@hermes/gateway";
import type { TelegramAdapterDeps } from "./adapter-deps.js";
import { commandMenus } from "./command-menu.js";
import { recordingLogger } from "./recording-logger.js";
import { createTelegramAdapter, type TelegramAdapter } from "./telegram-adapter.js";

let fake: FakeTelegram;
let dir: string;
let adapter: TelegramAdapter | undefined;

beforeEach(async () => {
  fake = await startFakeTelegram();
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
});

afterEach(async () => {
  await adapter?.stop();
  adapter = undefined;
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

function make(overrides: Partial<TelegramAdapterDeps> = {}, settings: { token?: string; webhook?: { url: string; secret: string } } = {}) {
  const logger = recordingLogger();
  adapter = createTelegramAdapter(
    { token: settings.token ?? fake.token, apiRoot: fake.apiRoot, ...(settings.webhook ? { webhook: settings.webhook } : {}) },
    { logger, attachmentsDir: dir, sleep: async () => {}, random: () => 0.5, ...overrides },
  );
  return { adapter, logger };
}

describe("TelegramAdapter", () => {
  it("starts with getMe, the command menu and polling, and hands messages to the gateway", async () => {
    const { adapter } = make();
    const ctx = context();
    await adapter.start(ctx);
    const menus = commandMenus(COMMANDS).length;
    expect(fake.calls.slice(0, menus + 2).map((c) => c.method)).toEqual(["getMe", ...Array<string>(menus).fill("setMyCommands"), "deleteWebhook"]);
    const { update, message } = fake.userWrites({ chat: groupChat(-100, "Friends"), text: "@hermes_test_bot hi" });
    await fake.waitForConfirmation(update);
    expect(ctx.received).toEqual([expect.objectContaining({ messageId: String(update.update_id), replyToId: String(message.message_id), mentionedBot: true, chat: { id: "-100", type: "group", title: "Friends" } })]);
  });

  it("sends into the topic as a reply, as HTML, and shows typing there", async () => {
    const { adapter } = make();
    await adapter.start(context());
    const forum = forumChat(-1001, "Forum");
    const topic = fake.createTopic(forum, "Alpha");
    const asked = fake.userWrites({ chat: forum, topic: topic.threadId, text: "question" }).message;
    const target = { chatId: "-1001", threadId: String(topic.threadId), replyToMessageId: String(asked.message_id) };
    const result = await adapter.send(target, { text: adapter.formatMarkdown("**yes**"), format: "markdown" });
    await adapter.sendTyping(target);
    expect(result).toEqual({ ok: true, messageId: String(fake.sentTo(-1001)[0]?.result.message_id) });
    expect(fake.sentTo(-1001).map((s) => [s.text, s.parseMode, s.threadId, s.replyToMessageId])).toEqual([["<b>yes</b>", "HTML", topic.threadId, asked.message_id]]);
    expect(fake.actions).toEqual([{ chatId: "-1001", action: "typing", threadId: topic.threadId }]);
  });

  it("turns Telegram's refusals into send results the gateway acts on", async () => {
    const { adapter } = make();
    await adapter.start(context());
    fake.userWrites({ text: "hi" });
    fake.floodWait("sendMessage", 3);
    expect(await adapter.send({ chatId: "7" }, { text: "x", format: "plain" })).toEqual({ ok: false, retryable: true, retryAfterMs: 3000, error: "429 Too Many Requests: retry after 3" });
    fake.floodWait("sendMessage", 0);
    expect(await adapter.send({ chatId: "7" }, { text: "<b>broken", format: "markdown" })).toEqual({
      ok: false,
      retryable: false,
      error: '400 Bad Request: can\'t parse entities: Can\'t find end tag corresponding to start tag "b"',
    });
    expect(await adapter.send({ chatId: "7" }, { text: "x".repeat(4097), format: "plain" })).toMatchObject({ ok: false, retryable: false, error: "400 Bad Request: message is too long" });
    await fake.close();
    expect(await adapter.send({ chatId: "7" }, { text: "x", format: "plain" })).toMatchObject({ ok: false, retryable: true, error: expect.stringMatching(/^network error/) });
  });

  it("follows a group that became a supergroup", async () => {
    const { adapter } = make();
    await adapter.start(context());
    fake.userWrites({ chat: groupChat(-1002, "Upgraded"), text: "hi" });
    fake.failNext("sendMessage", { error_code: 400, description: "Bad Request: group chat was upgraded to a supergroup chat", parameters: { migrate_to_chat_id: -1002 } });
    expect(await adapter.send({ chatId: "-55" }, { text: "hello", format: "plain" })).toMatchObject({ ok: true });
    expect(fake.sentTo(-1002).map((s) => s.text)).toEqual(["hello"]);
  });

  it("keeps trying to connect in the background while Telegram is unreachable", async () => {
    fake.failNext("getMe", { error_code: 502, description: "Bad Gateway" }, { times: 2 });
    const sleeps: number[] = [];
    const { adapter, logger } = make({ sleep: async (ms) => void sleeps.push(ms), now: () => 0 });
    const ctx = context();
    await adapter.start(ctx);
    expect(logger.entries[0]).toMatchObject({ level: "warn", message: "cannot connect to Telegram; retrying", fields: { error: "cannot reach Telegram: 502 Bad Gateway" } });
    const { update } = fake.userWrites({ text: "are you there?" });
    await fake.waitForConfirmation(update);
    expect(sleeps).toEqual([1000, 2000]);
    expect(ctx.received.map((m) => m.text)).toEqual(["are you there?"]);
    expect(ctx.statuses).toEqual([
      { state: "connecting" },
      { state: "retrying", error: "cannot reach Telegram: 502 Bad Gateway", retryAt: 1000 },
      { state: "retrying", error: "cannot reach Telegram: 502 Bad Gateway", retryAt: 2000 },
      { state: "connected" },
    ]);
  });

  it("in webhook mode, registers the route and the webhook with its secret instead of polling", async () => {
    const webhook = { url: "https://bot.example.invalid/tg/hook", secret: "s3cret" };
    const { adapter } = make({}, { webhook });
    const ctx = context();
    await adapter.start(ctx);
    expect(ctx.statuses).toEqual([{ state: "connecting" }, { state: "connected" }]);
    expect(fake.webhook).toEqual({ url: webhook.url, secret_token: "s3cret", allowed_updates: ["message", "channel_post", "callback_query"] });
    const handler = ctx.routes.get("POST /tg/hook");
    if (!handler) throw new Error("no webhook route");
    const { update } = fake.userWrites({ text: "via webhook" });
    const response = await handler({ headers: { "x-telegram-bot-api-secret-token": "s3cret" }, rawBody: Buffer.from(JSON.stringify(update)) });
    expect(response.status).toBe(200);
    expect(ctx.received.map((m) => m.text)).toEqual(["via webhook"]);
    expect(fake.callsOf("getUpdates")).toEqual([]);
  });

  it("in webhook mode without the gateway's HTTP server, reports failed and refuses to start", async () => {
    const ctx = context({ withRoutes: false });
    await expect(make({}, { webhook: { url: "https://bot.example.invalid/tg/hook", secret: "s3cret" } }).adapter.start(ctx)).rejects.toThrow(/HTTP server/);
    expect(ctx.statuses).toEqual([{ state: "failed", error: "TELEGRAM_WEBHOOK_URL is set, but the gateway runs without its HTTP server to receive the webhook" }]);
    expect(fake.calls).toEqual([]);
  });

  it("in webhook mode, retries a webhook Telegram refuses until it is set", async () => {
    fake.failNext("setWebhook", { error_code: 400, description: "Bad Request: bad webhook: Failed to resolve host" });
    const { adapter } = make({ now: () => 0 }, { webhook: { url: "https://bot.example.invalid/tg/hook", secret: "s3cret" } });
    const ctx = context();
    await adapter.start(ctx);
    await ctx.reported("connected");
    expect(ctx.statuses).toEqual([
      { state: "connecting" },
      { state: "retrying", error: "Telegram refused the request: 400 Bad Request: bad webhook: Failed to resolve host", retryAt: 1000 },
      { state: "connected" },
    ]);
    expect(fake.webhook?.url).toBe("https://bot.example.invalid/tg/hook");
  });
});
