import { afterEach, describe, expect, it } from "vitest";
import { startFakeTelegram, type FakeTelegram } from "./fake-telegram.js";
import { groupChat } from "./message-builder.js";

let fake: FakeTelegram | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function call(f: FakeTelegram, method: string, params: Record<string, unknown> = {}) {
  const response = await fetch(`${f.apiRoot}/bot${f.token}/${method}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(params) });
  return { status: response.status, body: (await response.json()) as { ok: boolean; result?: Record<string, unknown>; description?: string; parameters?: unknown } };
}

const KEYBOARD = { inline_keyboard: [[{ text: "Approve", callback_data: "/approve a1", style: "primary" }, { text: "Deny", callback_data: "/deny a1" }]] };

describe("fake Telegram edits and buttons", () => {
  it("edits a bot message, keeping every version, and refuses an edit that changes nothing", async () => {
    fake = await startFakeTelegram();
    fake.userWrites({ text: "hi" });
    const sent = await call(fake, "sendMessage", { chat_id: 7, text: "draft", reply_markup: KEYBOARD });
    const messageId = Number(sent.body.result?.message_id);
    expect(sent.body.result?.reply_markup).toEqual(KEYBOARD);
    const edited = await call(fake, "editMessageText", { chat_id: 7, message_id: messageId, text: "<b>final</b>", parse_mode: "HTML" });
    expect(edited.body.result).toMatchObject({ message_id: messageId, text: "final", edit_date: expect.any(Number) });
    expect(edited.body.result?.reply_markup).toBeUndefined();
    expect(await call(fake, "editMessageText", { chat_id: 7, message_id: messageId, text: "<b>final</b>", parse_mode: "HTML" })).toMatchObject({
      status: 400,
      body: { description: expect.stringMatching(/^Bad Request: message is not modified/) },
    });
    const message = fake.sentMessage(7, messageId);
    expect(message?.visible).toBe("final");
    expect(message?.versions.map((v) => [v.text, v.visible, v.parseMode, v.replyMarkup])).toEqual([
      ["draft", "draft", undefined, KEYBOARD],
      ["<b>final</b>", "final", "HTML", undefined],
    ]);
  });

  it("checks edits like Telegram: the message must be the bot's, the HTML valid, the buttons' data 1–64 bytes", async () => {
    fake = await startFakeTelegram();
    const { message: own } = fake.userWrites({ text: "mine" });
    const sent = await call(fake, "sendMessage", { chat_id: 7, text: "draft" });
    const messageId = Number(sent.body.result?.message_id);
    const description = async (params: Record<string, unknown>) => (await call(fake as FakeTelegram, "editMessageText", { chat_id: 7, ...params })).body.description;
    expect(await description({ message_id: own.message_id, text: "x" })).toBe("Bad Request: message can't be edited");
    expect(await description({ message_id: 99, text: "x" })).toBe("Bad Request: message to edit not found");
    expect(await description({ message_id: messageId, text: "<b>x", parse_mode: "HTML" })).toMatch(/^Bad Request: can't parse entities/);
    expect(await description({ message_id: messageId, text: "x".repeat(4097) })).toBe("Bad Request: MESSAGE_TOO_LONG");
    expect(await description({ message_id: messageId, text: "x", reply_markup: { inline_keyboard: [[{ text: "A", callback_data: "x".repeat(65) }]] } })).toBe("Bad Request: BUTTON_DATA_INVALID");
    fake.floodWait("editMessageText", 2);
    expect(await call(fake, "editMessageText", { chat_id: 7, message_id: messageId, text: "x" })).toMatchObject({ status: 429, body: { parameters: { retry_after: 2 } } });
    expect(fake.sentMessage(7, messageId)?.versions).toHaveLength(1);
  });

  it("turns a press of a shown button into a callback_query update and takes one answer for it", async () => {
    fake = await startFakeTelegram();
    const group = groupChat(-100, "Team");
    fake.userWrites({ chat: group, text: "hi" });
    await call(fake, "sendMessage", { chat_id: -100, text: "Run it?", reply_markup: KEYBOARD });
    const [sent] = fake.sentTo(-100);
    if (!sent) throw new Error("not sent");
    expect(() => fake?.pressButton(sent, "/approve zz")).toThrow(/shows no button "\/approve zz"/);
    const press = fake.pressButton(sent, "/deny a1", 31);
    expect(press.update.callback_query).toMatchObject({
      id: press.callbackQueryId,
      from: { id: 31, first_name: "User 31", is_bot: false },
      data: "/deny a1",
      message: { message_id: sent.result.message_id, chat: group, reply_markup: KEYBOARD },
    });
    const updates = (await call(fake, "getUpdates", { allowed_updates: ["callback_query"] })).body.result as unknown as unknown[];
    expect(updates).toEqual([press.update]);
    expect((await call(fake, "answerCallbackQuery", { callback_query_id: press.callbackQueryId })).status).toBe(200);
    expect((await call(fake, "answerCallbackQuery", { callback_query_id: press.callbackQueryId })).body.description).toMatch(/^Bad Request: query is too old/);
    expect(fake.callbackAnswers).toEqual([{ callbackQueryId: press.callbackQueryId }]);
  });

  it("keeps a command menu per scope and language, and refuses unknown scopes", async () => {
    fake = await startFakeTelegram();
    const menu = [{ command: "help", description: "list the commands" }];
    await call(fake, "setMyCommands", { commands: menu });
    await call(fake, "setMyCommands", { commands: [{ command: "help", description: "Befehle" }], scope: { type: "all_private_chats" }, language_code: "de" });
    await call(fake, "setMyCommands", { commands: [{ command: "help", description: "Hilfe" }], scope: { type: "all_private_chats" }, language_code: "de" });
    expect((await call(fake, "setMyCommands", { commands: menu, scope: { type: "everywhere" } })).body.description).toBe("Bad Request: invalid scope specified");
    expect((await call(fake, "setMyCommands", { commands: menu, language_code: "deu" })).body.description).toBe("Bad Request: invalid language code specified");
    expect(fake.commands).toEqual(menu);
    expect(fake.commandsFor("all_private_chats", "de")).toEqual([{ command: "help", description: "Hilfe" }]);
    expect(fake.commandsFor("all_private_chats")).toBeUndefined();
    expect(fake.commandLists.map((list) => [list.scope, list.languageCode])).toEqual([
      ["default", ""],
      ["all_private_chats", "de"],
    ]);
    expect((await call(fake, "getMyCommands", { scope: { type: "all_private_chats" }, language_code: "de" })).body.result).toEqual([{ command: "help", description: "Hilfe" }]);
  });
});
