import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeTelegram, type FakeTelegram } from "../../../test/fakes/telegram/index.js";
import { recordingContext as context } from "../../../test/support/recording-context.js";
import { recordingLogger } from "./recording-logger.js";
import { createTelegramAdapter, type TelegramAdapter } from "./telegram-adapter.js";

let fake: FakeTelegram;
let dir: string;
let adapter: TelegramAdapter;
let logger: ReturnType<typeof recordingLogger>;

const APPROVE = { label: "Approve", value: "/approve k3j4h5m6", style: "primary" as const };
const DENY = { label: "Deny", value: "/deny k3j4h5m6", style: "danger" as const };

beforeEach(async () => {
  fake = await startFakeTelegram();
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
  logger = recordingLogger();
  adapter = createTelegramAdapter({ token: fake.token, apiRoot: fake.apiRoot }, { logger, attachmentsDir: dir, sleep: async () => {}, random: () => 0.5 });
  await adapter.start(context());
  fake.userWrites({ text: "hi" });
});

afterEach(async () => {
  await adapter.stop();
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

async function sent(text: string, buttons?: (typeof APPROVE)[]): Promise<string> {
  const result = await adapter.send({ chatId: "7" }, { text, format: "plain", ...(buttons ? { buttons } : {}) });
  if (!result.ok || result.messageId === undefined) throw new Error(`send failed: ${JSON.stringify(result)}`);
  return result.messageId;
}

function shown(messageId: string) {
  const message = fake.sentMessage(7, Number(messageId));
  if (!message) throw new Error(`no message ${messageId}`);
  return message;
}

describe("TelegramAdapter.edit", () => {
  it("edits the message's text as HTML, keeping a history, and shows exactly the buttons given", async () => {
    const id = await sent("Thinking…");
    expect(await adapter.edit({ chatId: "7" }, id, { text: adapter.formatMarkdown("Run **ls**?"), format: "markdown", buttons: [APPROVE, DENY] })).toEqual({ ok: true, messageId: id });
    expect(await adapter.edit({ chatId: "7" }, id, { text: "Run ls? Approved.", format: "plain" })).toEqual({ ok: true, messageId: id });
    const message = shown(id);
    expect(message.versions.map((v) => [v.text, v.visible, v.parseMode, v.replyMarkup])).toEqual([
      ["Thinking…", "Thinking…", undefined, undefined],
      [
        "Run <b>ls</b>?",
        "Run ls?",
        "HTML",
        {
          inline_keyboard: [
            [
              { text: "Approve", callback_data: "/approve k3j4h5m6", style: "primary" },
              { text: "Deny", callback_data: "/deny k3j4h5m6", style: "danger" },
            ],
          ],
        },
      ],
      ["Run ls? Approved.", "Run ls? Approved.", undefined, undefined],
    ]);
    expect(message.visible).toBe("Run ls? Approved.");
    expect(fake.callsOf("editMessageText").map((call) => call.params.chat_id)).toEqual([7, 7]);
  });

  it("counts an edit to the text and buttons the message already shows as done", async () => {
    const id = await sent("Same", [APPROVE]);
    expect(await adapter.edit({ chatId: "7" }, id, { text: "Same", format: "plain", buttons: [APPROVE] })).toEqual({ ok: true, messageId: id });
    expect(fake.callsOf("editMessageText").map((call) => call.outcome)).toEqual([400]);
    expect(shown(id).versions).toHaveLength(1);
  });

  it("edits in the plain words when Telegram cannot parse the HTML", async () => {
    const id = await sent("draft");
    const broken = '<b>Done: see <a href="https://example.org/a?b=1&amp;c=2">the docs</a> &amp; 1 &lt; 2';
    expect(await adapter.edit({ chatId: "7" }, id, { text: broken, format: "markdown", buttons: [DENY] })).toEqual({ ok: true, messageId: id });
    expect(shown(id)).toMatchObject({ text: "Done: see the docs (https://example.org/a?b=1&c=2) & 1 < 2", parseMode: undefined, replyMarkup: { inline_keyboard: [[expect.objectContaining({ callback_data: "/deny k3j4h5m6" })]] } });
    expect(fake.callsOf("editMessageText").map((call) => [call.params.parse_mode, call.outcome])).toEqual([
      ["HTML", 400],
      [undefined, "ok"],
    ]);
    expect(logger.entries).toContainEqual(expect.objectContaining({ level: "warn", message: "Telegram could not parse an edit's HTML; editing in plain text" }));
  });

  it("reports Telegram's flood control with its retry_after, like a send", async () => {
    const id = await sent("draft");
    fake.floodWait("editMessageText", 4);
    expect(await adapter.edit({ chatId: "7" }, id, { text: "more", format: "plain" })).toEqual({ ok: false, retryable: true, retryAfterMs: 4000, error: "429 Too Many Requests: retry after 4" });
    expect(shown(id).visible).toBe("draft");
  });

  it("refuses an edit Telegram cannot make, and button values it cannot carry, as final", async () => {
    const id = await sent("draft");
    expect(await adapter.edit({ chatId: "7" }, "999", { text: "x", format: "plain" })).toEqual({ ok: false, retryable: false, error: "400 Bad Request: message to edit not found" });
    expect(await adapter.edit({ chatId: "7" }, "not-an-id", { text: "x", format: "plain" })).toEqual({ ok: false, retryable: false, error: '"not-an-id" is not a Telegram message id' });
    const tooLong = { label: "Too long", value: `/approve ${"x".repeat(60)}` };
    expect(await adapter.edit({ chatId: "7" }, id, { text: "x", format: "plain", buttons: [tooLong] })).toEqual({
      ok: false,
      retryable: false,
      error: 'button "Too long" has a value of 69 bytes; Telegram carries 1–64 bytes of callback_data',
    });
    expect(fake.callsOf("editMessageText")).toHaveLength(1);
  });
});
