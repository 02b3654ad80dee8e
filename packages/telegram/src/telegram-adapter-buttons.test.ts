import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { InboundMessage } from "@hermes/gateway";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forumChat, groupChat, startFakeTelegram, type FakeTelegram, type SentMessage } from "../../../test/fakes/telegram/index.js";
import { recordingContext as context, type RecordingContext } from "../../../test/support/recording-context.js";
import { recordingLogger } from "./recording-logger.js";
import { createTelegramAdapter, type TelegramAdapter } from "./telegram-adapter.js";

let fake: FakeTelegram;
let dir: string;
let adapter: TelegramAdapter | undefined;

const BUTTONS = [
  { label: "Approve", value: "/approve k3j4h5m6", style: "primary" as const },
  { label: "Approve for this conversation", value: "/approve k3j4h5m6 always" },
  { label: "Deny", value: "/deny k3j4h5m6", style: "danger" as const },
];
const PRESSED_AT = 1_800_000_000_000;
const BOB = { id: 99, first_name: "Bob", username: "bob" };

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

async function started(ctx: RecordingContext = context(), webhook?: { url: string; secret: string }) {
  const logger = recordingLogger();
  adapter = createTelegramAdapter(
    { token: fake.token, apiRoot: fake.apiRoot, ...(webhook ? { webhook } : {}) },
    { logger, attachmentsDir: dir, sleep: async () => {}, random: () => 0.5, now: () => PRESSED_AT },
  );
  await adapter.start(ctx);
  return { adapter, logger, ctx };
}

async function prompt(target: TelegramAdapter, chatId: number, threadId?: number): Promise<SentMessage> {
  const result = await target.send({ chatId: String(chatId), ...(threadId !== undefined ? { threadId: String(threadId) } : {}) }, { text: "Run `rm -rf build`?", format: "plain", buttons: BUTTONS });
  const message = result.ok && result.messageId !== undefined ? fake.sentMessage(chatId, Number(result.messageId)) : undefined;
  if (!message) throw new Error(`prompt not sent: ${JSON.stringify(result)}`);
  return message;
}

describe("Telegram buttons", () => {
  it("sends the buttons as one row of an inline keyboard", async () => {
    const { adapter } = await started();
    fake.userWrites({ text: "hi" });
    const message = await prompt(adapter, 7);
    expect(message.replyMarkup).toEqual({
      inline_keyboard: [
        [
          { text: "Approve", callback_data: "/approve k3j4h5m6", style: "primary" },
          { text: "Approve for this conversation", callback_data: "/approve k3j4h5m6 always" },
          { text: "Deny", callback_data: "/deny k3j4h5m6", style: "danger" },
        ],
      ],
    });
  });

  it("refuses a button value over Telegram's 64 bytes without sending anything", async () => {
    const { adapter } = await started();
    fake.userWrites({ text: "hi" });
    const value = `/approve ${"é".repeat(28)}`;
    expect(await adapter.send({ chatId: "7" }, { text: "x", format: "plain", buttons: [{ label: "Approve", value }] })).toEqual({
      ok: false,
      retryable: false,
      error: 'button "Approve" has a value of 65 bytes; Telegram carries 1–64 bytes of callback_data',
    });
    expect(fake.callsOf("sendMessage")).toEqual([]);
  });

  it("hands a press to the gateway as a message from the presser, in the topic of the prompt, and answers it", async () => {
    const { adapter, ctx } = await started();
    expect((await fake.waitForCall("getUpdates")).params.allowed_updates).toEqual(["message", "channel_post", "callback_query"]);
    const forum = forumChat(-1001, "Ops");
    const topic = fake.createTopic(forum, "Deploys");
    fake.userWrites({ chat: forum, topic: topic.threadId, text: "deploy" });
    const message = await prompt(adapter, -1001, topic.threadId);
    const press = fake.pressButton(message, "/approve k3j4h5m6 always", BOB);
    await fake.waitForConfirmation(press.update);
    const expected: InboundMessage = {
      platform: "telegram",
      chat: { id: "-1001", type: "group", title: "Ops" },
      threadId: String(topic.threadId),
      user: { id: "99", name: "Bob", isBot: false },
      messageId: `cb${press.callbackQueryId}`,
      text: "/approve k3j4h5m6 always",
      attachments: [],
      mentionedBot: true,
      timestamp: PRESSED_AT,
      replyToId: String(message.result.message_id),
      action: { messageId: String(message.result.message_id) },
    };
    expect(ctx.received.filter((m) => m.action)).toEqual([expected]);
    await fake.waitForCall("answerCallbackQuery");
    expect(fake.callbackAnswers).toEqual([{ callbackQueryId: press.callbackQueryId }]);
  });

  it("takes presses through the webhook too", async () => {
    const webhook = { url: "https://bot.example.invalid/tg/hook", secret: "s3cret" };
    const { adapter, ctx } = await started(context(), webhook);
    expect(fake.webhook?.allowed_updates).toContain("callback_query");
    fake.userWrites({ chat: groupChat(-100, "Friends"), text: "hi" });
    const press = fake.pressButton(await prompt(adapter, -100), "/deny k3j4h5m6");
    const handler = ctx.routes.get("POST /tg/hook");
    if (!handler) throw new Error("no webhook route");
    const response = await handler({ headers: { "x-telegram-bot-api-secret-token": "s3cret" }, rawBody: Buffer.from(JSON.stringify(press.update)) });
    expect(response.status).toBe(200);
    expect(ctx.received.map((m) => [m.text, m.user.id, m.chat.id, m.mentionedBot])).toEqual([["/deny k3j4h5m6", "7", "-100", true]]);
    expect(fake.callsOf("getUpdates")).toEqual([]);
    await fake.waitForCall("answerCallbackQuery");
    expect(fake.callbackAnswers.map((answer) => answer.callbackQueryId)).toEqual([press.callbackQueryId]);
  });

  it("logs an answer Telegram refuses and still hands the press over", async () => {
    const { adapter, ctx, logger } = await started();
    fake.userWrites({ text: "hi" });
    fake.failNext("answerCallbackQuery", { error_code: 400, description: "Bad Request: query is too old and response timeout expired or query ID is invalid" });
    const press = fake.pressButton(await prompt(adapter, 7), "/approve k3j4h5m6");
    await fake.waitForConfirmation(press.update);
    await fake.waitForCall("answerCallbackQuery");
    expect(ctx.received.filter((m) => m.action).map((m) => m.messageId)).toEqual([`cb${press.callbackQueryId}`]);
    await expect.poll(() => logger.entries.find((entry) => entry.message === "could not answer a Telegram button press")).toMatchObject({
      level: "warn",
      fields: { callbackQueryId: press.callbackQueryId, error: "400 Bad Request: query is too old and response timeout expired or query ID is invalid" },
    });
  });

  it("ignores a press without a chat message or without data, with a debug line", async () => {
    const { adapter, ctx, logger } = await started();
    fake.userWrites({ text: "hi" });
    const { result } = await prompt(adapter, 7);
    const from = { id: 7, is_bot: false, first_name: "Ada" };
    const inline = fake.push({ callback_query: { id: "q1", from, inline_message_id: "im1", chat_instance: "c", data: "/status" } });
    const game = fake.push({ callback_query: { id: "q2", from, message: result, chat_instance: "c", game_short_name: "g" } });
    await fake.waitForConfirmation(inline);
    await fake.waitForConfirmation(game);
    expect(ctx.received.map((m) => m.text)).toEqual(["hi"]);
    expect(fake.callsOf("answerCallbackQuery")).toEqual([]);
    expect(logger.entries.filter((entry) => entry.message === "Telegram update ignored").map((entry) => [entry.level, entry.fields.reason])).toEqual([
      ["debug", "button press on an inline message"],
      ["debug", "button press without data"],
    ]);
  });
});
