import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { abortableSleep } from "@hermes/gateway";
import { startFakeTelegram, type FakeTelegram } from "../../../test/fakes/telegram/index.js";
import { recordingContext, type RecordingContext } from "../../../test/support/recording-context.js";
import type { TelegramAdapterDeps } from "./adapter-deps.js";
import { gatedSleep } from "./adapter-test-context.js";
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

const WEBHOOK = { url: "https://bot.example.invalid/tg/hook", secret: "s3cret" };
const REFUSED_TOKEN = "401 Unauthorized: Telegram refused the bot token; check TELEGRAM_BOT_TOKEN";
const REFUSED_SEND = { ok: false, retryable: false, error: "401 Unauthorized" };

function make(overrides: Partial<TelegramAdapterDeps> = {}, mode: "webhook" | "polling" = "webhook") {
  const logger = recordingLogger();
  adapter = createTelegramAdapter(
    { token: fake.token, apiRoot: fake.apiRoot, ...(mode === "webhook" ? { webhook: WEBHOOK } : {}) },
    { logger, attachmentsDir: dir, sleep: async () => {}, random: () => 0.5, now: () => 0, ...overrides },
  );
  return { adapter, logger };
}

async function startedConnected(adapter: TelegramAdapter): Promise<RecordingContext> {
  const ctx = recordingContext();
  await adapter.start(ctx);
  await ctx.reported("connected");
  return ctx;
}

describe("TelegramAdapter: a reply refused for the token", () => {
  it("in webhook mode, turns the adapter retrying with the cause and sets the bot up again once the token is accepted", async () => {
    const gate = gatedSleep();
    const { adapter, logger } = make({ sleep: gate.sleep });
    const ctx = await startedConnected(adapter);
    fake.userWrites({ text: "hi" });
    fake.refuseToken();
    expect(await adapter.send({ chatId: "7" }, { text: "answer", format: "plain" })).toEqual(REFUSED_SEND);
    expect(ctx.statuses).toEqual([{ state: "connecting" }, { state: "connected" }, { state: "retrying", error: REFUSED_TOKEN, retryAt: 1000 }]);
    expect(logger.entries.filter((e) => e.level === "error")).toEqual([expect.objectContaining({ message: "Telegram refused a reply; retrying", fields: expect.objectContaining({ error: REFUSED_TOKEN }) })]);
    gate.wake();
    await ctx.reported("retrying", 2);
    fake.refuseToken(false);
    gate.wake();
    await ctx.reported("connected", 2);
    expect(ctx.statuses.slice(3)).toEqual([{ state: "retrying", error: REFUSED_TOKEN, retryAt: 2000 }, { state: "connected" }]);
    expect(gate.pauses).toEqual([1000, 2000]);
    expect(fake.callsOf("getMe").map((c) => c.outcome)).toEqual(["ok", 401, "ok"]);
    expect(fake.callsOf("setWebhook").map((c) => c.outcome)).toEqual(["ok", "ok"]);
    expect(await adapter.send({ chatId: "7" }, { text: "answer again", format: "plain" })).toMatchObject({ ok: true });
  });

  it("starts one set-up again for a burst of refused replies and typing actions", async () => {
    const gate = gatedSleep();
    const { adapter } = make({ sleep: gate.sleep });
    const ctx = await startedConnected(adapter);
    fake.refuseToken();
    const sends = await Promise.all([1, 2, 3, 4].map((n) => adapter.send({ chatId: "7" }, { text: `part ${n}`, format: "plain" })));
    await expect(adapter.sendTyping({ chatId: "7" })).rejects.toThrow(/401/);
    expect(sends).toEqual(Array(4).fill(REFUSED_SEND));
    expect(ctx.statuses.map((s) => s.state)).toEqual(["connecting", "connected", "retrying"]);
    expect(gate.pauses).toEqual([1000]);
    fake.refuseToken(false);
    gate.wake();
    await ctx.reported("connected", 2);
    expect(ctx.statuses.map((s) => s.state)).toEqual(["connecting", "connected", "retrying", "connected"]);
    expect(fake.callsOf("getMe")).toHaveLength(2);
  });

  it("stops at once while waiting to set up again, and reports nothing after", async () => {
    const { adapter } = make({ sleep: (_ms, signal) => abortableSleep(60 * 60_000, signal) });
    const ctx = await startedConnected(adapter);
    fake.refuseToken();
    await adapter.send({ chatId: "7" }, { text: "answer", format: "plain" });
    await adapter.stop();
    fake.refuseToken(false);
    await adapter.send({ chatId: "7" }, { text: "after stop", format: "plain" });
    expect(ctx.statuses.map((s) => s.state)).toEqual(["connecting", "connected", "retrying"]);
    expect(fake.callsOf("getMe")).toHaveLength(1);
  });

  it("while polling, makes the poller ask Telegram at once instead of starting a second set-up", async () => {
    const { adapter } = make({}, "polling");
    const ctx = await startedConnected(adapter);
    await fake.waitForHeldPoll();
    const pollsBefore = fake.callsOf("getUpdates").length;
    fake.failNext("sendMessage", { error_code: 401, description: "Unauthorized" });
    expect(await adapter.send({ chatId: "7" }, { text: "answer", format: "plain" })).toEqual(REFUSED_SEND);
    // The held long poll is cut short and followed by a call that answers at once; the token is fine, so it stays connected.
    await fake.waitForHeldPoll();
    const { update } = fake.userWrites({ text: "still listening" });
    await fake.waitForConfirmation(update);
    expect(fake.callsOf("getUpdates").slice(pollsBefore).some((c) => c.params.timeout === 0)).toBe(true);
    expect(ctx.received.map((m) => m.text)).toEqual(["still listening"]);
    expect(ctx.statuses.map((s) => s.state)).toEqual(["connecting", "connected"]);
    expect(fake.callsOf("getMe")).toHaveLength(1);
  });
});
