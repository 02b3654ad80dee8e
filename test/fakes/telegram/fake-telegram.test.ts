import { afterEach, describe, expect, it } from "vitest";
import { parseTelegramHtml } from "./telegram-html.js";
import { startFakeTelegram, type FakeTelegram } from "./fake-telegram.js";
import { groupChat } from "./message-builder.js";

let fake: FakeTelegram | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function call(f: FakeTelegram, method: string, params: Record<string, unknown> = {}, form = false) {
  const fields = Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === "string" ? v : JSON.stringify(v)]);
  const body = form ? new URLSearchParams(fields).toString() : JSON.stringify(params);
  const response = await fetch(`${f.apiRoot}/bot${f.token}/${method}`, {
    method: "POST",
    headers: { "content-type": form ? "application/x-www-form-urlencoded" : "application/json" },
    body,
  });
  return { status: response.status, body: (await response.json()) as { ok: boolean; result?: unknown; description?: string; parameters?: unknown } };
}

describe("fake Telegram Bot API", () => {
  it("serves getUpdates with offsets: updates stay until a later call confirms them", async () => {
    fake = await startFakeTelegram();
    const first = fake.userWrites({ text: "one" }).update;
    const second = fake.userWrites({ text: "two" }).update;
    expect((await call(fake, "getUpdates")).body.result).toEqual([first, second]);
    expect((await call(fake, "getUpdates", { offset: second.update_id })).body.result).toEqual([second]);
    expect(fake.confirmedOffset()).toBe(second.update_id);
    const held = call(fake, "getUpdates", { offset: second.update_id + 1, timeout: 30 });
    const third = fake.userWrites({ text: "three" }).update;
    expect((await held).body.result).toEqual([third]);
  });

  it("holds an empty long poll until its timeout and filters update types", async () => {
    fake = await startFakeTelegram();
    const { message } = fake.userWrites({ text: "x" });
    fake.userEdits(message, "y");
    const answer = await call(fake, "getUpdates", { allowed_updates: ["edited_message"], timeout: 0 });
    expect((answer.body.result as Array<Record<string, unknown>>).map((u) => Object.keys(u).sort())).toEqual([["edited_message", "update_id"]]);
  });

  it("checks the token, rejects unbalanced HTML and over-long text, and accepts form bodies", async () => {
    fake = await startFakeTelegram();
    fake.userWrites({ text: "hi" });
    const wrong = await fetch(`${fake.apiRoot}/botnope/getMe`, { method: "POST" });
    expect(wrong.status).toBe(401);
    expect((await call(fake, "sendMessage", { chat_id: 7, text: "<b>open", parse_mode: "HTML" })).body.description).toMatch(/^Bad Request: can't parse entities/);
    expect((await call(fake, "sendMessage", { chat_id: 7, text: "x".repeat(4097) })).body.description).toBe("Bad Request: message is too long");
    const ok = await call(fake, "sendMessage", { chat_id: "7", text: "<i>fine</i> &amp; dandy", parse_mode: "HTML", reply_parameters: { message_id: 1 } }, true);
    expect(ok.status).toBe(200);
    expect(fake.sentTo(7).map((s) => [s.visible, s.replyToMessageId])).toEqual([["fine & dandy", 1]]);
    expect((await call(fake, "sendMessage", { chat_id: 7, text: "x", reply_parameters: { message_id: 99 } })).body.description).toBe("Bad Request: message to be replied not found");
  });

  it("refuses every call with 401 while told to, ending held long polls at once", async () => {
    fake = await startFakeTelegram();
    const held = call(fake, "getUpdates", { timeout: 30 });
    await fake.waitForHeldPoll();
    fake.refuseToken();
    expect(await held).toMatchObject({ status: 401, body: { ok: false, description: "Unauthorized" } });
    expect((await call(fake, "getMe")).status).toBe(401);
    fake.refuseToken(false);
    expect((await call(fake, "getMe")).status).toBe(200);
    expect(fake.callsOf("getMe").map((c) => c.outcome)).toEqual([401, "ok"]);
  });

  it("answers 409 to polling while a webhook is set, and floods with retry_after", async () => {
    let now = 1_000_000;
    fake = await startFakeTelegram({ now: () => now });
    await call(fake, "setWebhook", { url: "https://bot.example.invalid/hook", secret_token: "s" });
    expect((await call(fake, "getUpdates")).status).toBe(409);
    fake.userWrites({ chat: groupChat(-5, "G"), text: "hi" });
    fake.floodWait("sendMessage", 2);
    expect((await call(fake, "sendMessage", { chat_id: -5, text: "a" })).body.parameters).toEqual({ retry_after: 2 });
    now += 1500;
    expect((await call(fake, "sendMessage", { chat_id: -5, text: "a" })).body.parameters).toEqual({ retry_after: 1 });
    now += 500;
    expect((await call(fake, "sendMessage", { chat_id: -5, text: "a" })).status).toBe(200);
  });

  it("enforces Telegram's limits per chat: bursts of 3, then one a second, answering 429 with retry_after", async () => {
    let now = 1_000_000;
    fake = await startFakeTelegram({ now: () => now, rateLimits: { toleranceMs: 0 } });
    fake.userWrites({ text: "hi" });
    const outcomes = [];
    for (let n = 0; n < 4; n += 1) outcomes.push(await call(fake, n === 1 ? "sendChatAction" : "sendMessage", { chat_id: 7, text: "x", action: "typing" }));
    expect(outcomes.map((o) => o.status)).toEqual([200, 200, 200, 429]);
    expect(outcomes[3]?.body).toEqual({ ok: false, error_code: 429, description: "Too Many Requests: retry after 1", parameters: { retry_after: 1 } });
    // Reading and set-up calls do not count; a refused call counts against nothing.
    expect((await call(fake, "getMe")).status).toBe(200);
    now += 999;
    expect((await call(fake, "sendMessage", { chat_id: 7, text: "x" })).status).toBe(429);
    now += 1;
    expect((await call(fake, "sendMessage", { chat_id: 7, text: "x" })).status).toBe(200);
    expect((await call(fake, "sendMessage", { chat_id: 7, text: "x" })).status).toBe(429);
    expect(fake.rateLimited).toEqual([
      { method: "sendMessage", chatId: "7", limit: "chat", retryAfter: 1 },
      { method: "sendMessage", chatId: "7", limit: "chat", retryAfter: 1 },
      { method: "sendMessage", chatId: "7", limit: "chat", retryAfter: 1 },
    ]);
    expect(fake.sentTo(7)).toHaveLength(3);
    await fake.close();

    // By default a call may arrive up to a second early (arrival jitter): a fourth at once passes, a fifth does not.
    fake = await startFakeTelegram({ now: () => now });
    fake.userWrites({ text: "hi" });
    const statuses = [];
    for (let n = 0; n < 5; n += 1) statuses.push((await call(fake, "sendMessage", { chat_id: 7, text: "x" })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });

  it("enforces 20 a minute per group and 30 a second for the whole bot, and can be tuned or turned off", async () => {
    let now = 1_000_000;
    fake = await startFakeTelegram({ now: () => now, rateLimits: { perChat: { perSecond: 100, burst: 100 }, perGroup: { perSecond: 20 / 60, burst: 20 }, toleranceMs: 0 } });
    fake.userWrites({ chat: groupChat(-5, "G"), text: "hi" });
    const group = [];
    for (let n = 0; n < 21; n += 1) group.push((await call(fake, "sendMessage", { chat_id: -5, text: `${n}` })).status);
    expect(group.filter((status) => status === 200)).toHaveLength(20);
    expect(fake.rateLimited).toEqual([{ method: "sendMessage", chatId: "-5", limit: "group", retryAfter: 3 }]);
    const users = Array.from({ length: 11 }, (_, n) => fake?.userWrites({ from: { id: 100 + n, first_name: `U${n}` }, text: "hi" }).message.chat.id);
    const overall = [];
    for (const chatId of users) overall.push((await call(fake, "sendMessage", { chat_id: chatId, text: "x" })).status);
    expect(overall).toEqual([...Array<number>(10).fill(200), 429]);
    expect(fake.rateLimited.at(-1)).toMatchObject({ limit: "global", retryAfter: 1 });
    await fake.close();

    fake = await startFakeTelegram({ now: () => now, rateLimits: false });
    fake.userWrites({ text: "hi" });
    const unlimited = [];
    for (let n = 0; n < 10; n += 1) unlimited.push((await call(fake, "sendMessage", { chat_id: 7, text: "x" })).status);
    expect(unlimited.every((status) => status === 200)).toBe(true);
    expect(fake.rateLimited).toEqual([]);
  });

  it("serves registered files through getFile and the file URL", async () => {
    fake = await startFakeTelegram();
    const { fileId } = fake.addFile({ content: Buffer.from("data"), name: "a.txt" });
    const file = (await call(fake, "getFile", { file_id: fileId })).body.result as { file_path: string; file_size: number };
    expect(file.file_size).toBe(4);
    const download = await fetch(`${fake.apiRoot}/file/bot${fake.token}/${file.file_path}`);
    expect(Buffer.from(await download.arrayBuffer()).toString()).toBe("data");
    expect(fake.downloads).toEqual([file.file_path]);
  });
});

describe("parseTelegramHtml", () => {
  it("returns the visible text of valid markup and Telegram's error otherwise", () => {
    expect(parseTelegramHtml('<b>a</b> <a href="https://x.y">l</a> &lt;&#33;')).toEqual({ ok: true, text: "a l <!" });
    expect(parseTelegramHtml("<b><i>x</b></i>").ok).toBe(false);
    expect(parseTelegramHtml("<div>x</div>").ok).toBe(false);
    expect(parseTelegramHtml("a & b").ok).toBe(false);
    expect(parseTelegramHtml("<a>x</a>").ok).toBe(false);
  });
});
