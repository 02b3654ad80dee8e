import type { Update } from "grammy/types";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeTelegram } from "../fakes/telegram/index.js";
import { lastUserText, startTelegramStand, TELEGRAM_WEBHOOK_SECRET, telegramWebhookUrl, waitUntil, watchProcessFailures, type Stand } from "./platform-stands.js";

const DM_KEY = "agent:main:telegram:dm:7";
const ADA = { id: 7, is_bot: false, first_name: "Ada" };
const ADA_CHAT = { id: 7, type: "private", first_name: "Ada" };
let stand: Stand<FakeTelegram> | undefined;
let watcher: ReturnType<typeof watchProcessFailures> | undefined;

afterEach(async () => {
  await stand?.close();
  watcher?.stop();
  const failures = watcher?.failures ?? [];
  stand = undefined;
  watcher = undefined;
  expect(failures).toEqual([]);
});

async function start(options: { webhook?: boolean } = {}): Promise<Stand<FakeTelegram>> {
  watcher = watchProcessFailures();
  stand = await startTelegramStand(options);
  return stand;
}

let nextMessageId = 500;
/** A raw update as grammY would receive it, with whatever (broken) message fields are given. */
function rawUpdate(message: Record<string, unknown>, kind = "message"): Omit<Update, "update_id"> {
  nextMessageId += 1;
  return { [kind]: { message_id: nextMessageId, date: Math.floor(Date.now() / 1000), ...message } } as Omit<Update, "update_id">;
}

/** Hands junk to the bot (as a re-delivery, which Telegram sends whatever allowed_updates says) and waits until it is confirmed. */
async function deliverJunk(fake: FakeTelegram, updates: Array<Omit<Update, "update_id">>): Promise<void> {
  for (const [index, update] of updates.entries()) {
    const full = { ...update, update_id: 90_000 + nextMessageId * 10 + index } as Update;
    fake.redeliver(full);
    await fake.waitForConfirmation(full);
  }
}

/** A normal message after the junk is answered: nothing got stuck. */
async function expectNextAnswered(s: Stand<FakeTelegram>, text: string): Promise<void> {
  s.h.llm.enqueue({ kind: "text", text: `answer: ${text}` });
  const { update } = s.fake.userWrites({ text });
  await s.fake.waitForConfirmation(update);
  await s.h.gateway.waitIdle(DM_KEY);
  expect(s.fake.sentTo(7).at(-1)?.visible).toBe(`answer: ${text}`);
}

describe("hostile Telegram input (grammY against the stand-in, real gateway)", () => {
  it("skips junk updates (no chat, no text, null sender, wrong types, unknown update types) with nothing in the chat", async () => {
    const s = await start();
    await deliverJunk(s.fake, [
      rawUpdate({ from: ADA, text: "no chat at all" }),
      rawUpdate({ chat: ADA_CHAT, from: null }),
      rawUpdate({ chat: ADA_CHAT, from: ADA, text: 42 }),
      { message: null } as unknown as Omit<Update, "update_id">,
      { business_message_from_the_future: { id: 1, text: "hello?" } } as unknown as Omit<Update, "update_id">,
      {} as Omit<Update, "update_id">,
    ]);
    await s.h.gateway.waitIdle(DM_KEY);
    expect(s.fake.sent).toEqual([]);
    expect(s.h.llm.requests).toHaveLength(0);
    expect(s.logger.entries.filter((e) => e.message === "could not read a Telegram update; skipped").length).toBeGreaterThanOrEqual(2);
    await expectNextAnswered(s, "still there?");
  });

  it("answers a message without a sender, with lone surrogates, RTL overrides, broken entities and entities beyond the text", async () => {
    const s = await start();
    await expectNextAnswered(s, "hello first");
    s.h.llm.enqueue({ kind: "text", text: "answer one" }, { kind: "text", text: "answer two \u202Etxt.exe" }, { kind: "text", text: "answer three" });
    // A private chat identifies its sender even without `from`.
    const noFrom = s.fake.push(rawUpdate({ chat: ADA_CHAT, text: "no from field" }));
    await s.fake.waitForConfirmation(noFrom);
    await s.h.gateway.waitIdle(DM_KEY);
    const tricky = "lone \uD800 high, lone \uDC00 low, \u202Eevil.exe override";
    const { update } = s.fake.userWrites({
      from: { id: 7, first_name: "\u202EadA", last_name: "\uD83D" },
      text: tricky,
    });
    await s.fake.waitForConfirmation(update);
    await s.h.gateway.waitIdle(DM_KEY);
    // Broken entities cost the message nothing.
    const badEntities = s.fake.push(rawUpdate({ chat: ADA_CHAT, from: ADA, text: "bad entities", entities: [{ type: "text_mention", offset: 0, length: 3, user: null }, null] }));
    await s.fake.waitForConfirmation(badEntities);
    await s.h.gateway.waitIdle(DM_KEY);
    // Entities that point past the end of the text or overlap each other mention nobody.
    s.fake.push(
      rawUpdate({
        chat: { id: -300, type: "group", title: "\u202Epuorg" },
        from: ADA,
        text: "@hermes_test_bot",
        entities: [
          { type: "mention", offset: 5_000, length: 16 },
          { type: "mention", offset: -4, length: 9_999 },
          { type: "bold", offset: 2, length: 3 },
          { type: "italic", offset: 1, length: 5 },
        ],
      }),
    );
    await waitUntil(() => s.fake.confirmedOffset() > badEntities.update_id + 1, "the group update confirmed");
    await s.h.gateway.waitIdle("agent:main:telegram:group:-300:7");

    expect(s.fake.sentTo(7).map((m) => m.visible)).toEqual(["answer: hello first", "answer one", "answer two \u202Etxt.exe", "answer three"]);
    expect(lastUserText(s.h.llm.requests[1])).toContain("no from field");
    expect(lastUserText(s.h.llm.requests[2])).toContain("override");
    expect(s.fake.sentTo(-300)).toEqual([]);
    await expectNextAnswered(s, "plain again");
  });

  it("hands a 100,000-character text to the model and delivers a long answer in parts", async () => {
    const s = await start();
    const long = `q-long ${"x".repeat(99_990)} end`;
    const answer = Array.from({ length: 200 }, (_, i) => `Line ${i} of a long answer that needs several messages.`).join("\n");
    s.h.llm.enqueue({ kind: "text", text: answer });
    const { update } = s.fake.userWrites({ text: long });
    await s.fake.waitForConfirmation(update);
    await s.h.gateway.waitIdle(DM_KEY);

    expect(lastUserText(s.h.llm.requests[0])).toContain(long);
    const parts = s.fake.sentTo(7);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.visible.length).toBeLessThanOrEqual(4096);
    expect(parts.map((p) => p.visible).join("\n")).toContain("Line 199 of a long answer");
    await expectNextAnswered(s, "short one");
  });

  it("refuses attachments with absurd sizes with a note instead of downloading them", async () => {
    const s = await start();
    await expectNextAnswered(s, "hello first");
    s.h.llm.enqueue({ kind: "text", text: "too big" }, { kind: "text", text: "not there" });
    s.fake.push(
      rawUpdate({
        chat: ADA_CHAT,
        from: ADA,
        caption: "q-file",
        document: { file_id: "no-such-file", file_unique_id: "u1", file_name: "galaxy.bin", file_size: 9e15 },
      }),
    );
    await waitUntil(() => s.fake.sentTo(7).length === 2, "the answer about the file");
    await s.h.gateway.waitIdle(DM_KEY);
    expect(s.fake.callsOf("getFile")).toHaveLength(0);
    expect(lastUserText(s.h.llm.requests[1])).toContain('The file "galaxy.bin"');
    expect(lastUserText(s.h.llm.requests[1])).toContain("was not accepted");

    // A negative size passes the size check; the download then fails and the agent is told so.
    s.fake.push(rawUpdate({ chat: ADA_CHAT, from: ADA, document: { file_id: "gone", file_unique_id: "u2", file_name: "minus.bin", file_size: -1 } }));
    await waitUntil(() => s.fake.sentTo(7).length === 3, "the answer about the missing file");
    await s.h.gateway.waitIdle(DM_KEY);
    expect(lastUserText(s.h.llm.requests[2])).toContain('The file "minus.bin" could not be downloaded');
    await expectNextAnswered(s, "after the file");
  });

  it("answers bad webhook bodies with 4xx (invalid JSON, no update id, 10 MB, wrong or missing secret) and keeps working", async () => {
    const s = await start({ webhook: true });
    const url = telegramWebhookUrl(s.h);
    const post = async (body: string | Buffer, secret: string | null = TELEGRAM_WEBHOOK_SECRET): Promise<number> => {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (secret !== null) headers["x-telegram-bot-api-secret-token"] = secret;
      const response = await fetch(url, { method: "POST", headers, body });
      await response.text();
      return response.status;
    };
    const statuses = {
      invalidJson: await post("{not json"),
      array: await post("[1,2,3]"),
      noUpdateId: await post(JSON.stringify({ message: { text: "hi" } })),
      tooLarge: await post(Buffer.alloc(10 * 1024 * 1024, 0x20)),
      wrongSecret: await post(JSON.stringify({ update_id: 1 }), "guessed"),
      noSecret: await post(JSON.stringify({ update_id: 1 }), null),
    };
    expect(statuses).toEqual({ invalidJson: 400, array: 400, noUpdateId: 400, tooLarge: 413, wrongSecret: 403, noSecret: 401 });
    expect(s.logger.entries.map((e) => e.message)).toContain("Telegram webhook request with a wrong secret token refused");
    expect(s.fake.sent).toEqual([]);

    s.h.llm.enqueue({ kind: "text", text: "webhook still works" });
    const { update } = s.fake.userWrites({ text: "after the junk" });
    expect((await s.fake.deliverToWebhook(update, { url })).status).toBe(200);
    await s.h.gateway.waitIdle(DM_KEY);
    expect(s.fake.sentTo(7).map((m) => m.visible)).toEqual(["webhook still works"]);
  });
});
