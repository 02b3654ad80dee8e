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

function make(overrides: Partial<TelegramAdapterDeps> = {}) {
  const logger = recordingLogger();
  adapter = createTelegramAdapter({ token: fake.token, apiRoot: fake.apiRoot }, { logger, attachmentsDir: dir, sleep: async () => {}, random: () => 0.5, now: () => 0, ...overrides });
  return { adapter, logger };
}

async function messageGetsThrough(ctx: RecordingContext, text: string): Promise<void> {
  const { update } = fake.userWrites({ text });
  await fake.waitForConfirmation(update);
  expect(ctx.received.at(-1)?.text).toBe(text);
}

const REFUSED_TOKEN = "401 Unauthorized: Telegram refused the bot token; check TELEGRAM_BOT_TOKEN";
const CONFLICT = { error_code: 409, description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running" };

describe("TelegramAdapter never gives up on Telegram", () => {
  it("starts despite a refused token, reports why, and connects once the token is accepted", async () => {
    fake.refuseToken();
    const gate = gatedSleep();
    const { adapter, logger } = make({ sleep: gate.sleep });
    const ctx = recordingContext();
    await adapter.start(ctx);
    expect(ctx.statuses).toEqual([{ state: "connecting" }, { state: "retrying", error: REFUSED_TOKEN, retryAt: 1000 }]);
    expect(logger.entries.filter((e) => e.level === "error")).toEqual([expect.objectContaining({ message: "cannot connect to Telegram; retrying", fields: expect.objectContaining({ error: REFUSED_TOKEN }) })]);
    gate.wake();
    await ctx.reported("retrying", 2);
    expect(ctx.statuses.at(-1)).toEqual({ state: "retrying", error: REFUSED_TOKEN, retryAt: 2000 });
    fake.refuseToken(false);
    gate.wake();
    await ctx.reported("connected");
    await messageGetsThrough(ctx, "hello again");
    expect(gate.pauses).toEqual([1000, 2000]);
    expect(fake.callsOf("getMe").map((c) => c.outcome)).toEqual([401, 401, "ok"]);
    expect(logger.entries.some((e) => e.level === "info" && e.message === "Telegram connection recovered")).toBe(true);
  });

  it("after a refused token while polling, sets the bot up again and goes on polling", async () => {
    const gate = gatedSleep();
    const { adapter } = make({ sleep: gate.sleep });
    const ctx = recordingContext();
    await adapter.start(ctx);
    await messageGetsThrough(ctx, "before");
    await fake.waitForHeldPoll();
    fake.refuseToken();
    await ctx.reported("retrying");
    gate.wake();
    await ctx.reported("retrying", 2);
    fake.refuseToken(false);
    gate.wake();
    await ctx.reported("connected", 2);
    await messageGetsThrough(ctx, "after");
    expect(ctx.statuses).toEqual([
      { state: "connecting" },
      { state: "connected" },
      { state: "retrying", error: REFUSED_TOKEN, retryAt: 1000 },
      { state: "retrying", error: REFUSED_TOKEN, retryAt: 2000 },
      { state: "connected" },
    ]);
    expect(fake.callsOf("getMe").map((c) => c.outcome)).toEqual(["ok", 401, "ok"]);
    expect(fake.callsOf("deleteWebhook").map((c) => c.outcome)).toEqual(["ok", "ok"]);
    expect(ctx.received.map((m) => m.text)).toEqual(["before", "after"]);
  });

  it("keeps retrying a 409 conflict while polling long past the old four attempts, then recovers", async () => {
    const sleeps: number[] = [];
    const { adapter, logger } = make({ sleep: async (ms) => void sleeps.push(ms) });
    const ctx = recordingContext();
    await adapter.start(ctx);
    await ctx.reported("connected");
    await fake.waitForHeldPoll();
    fake.failNext("getUpdates", CONFLICT, { times: 7 });
    await messageGetsThrough(ctx, "ends the held poll");
    await ctx.reported("connected", 2);
    await messageGetsThrough(ctx, "after the conflict");
    expect(sleeps).toEqual([5000, 10000, 20000, 40000, 60000, 60000, 60000]);
    expect(ctx.statuses.map((s) => s.state)).toEqual(["connecting", "connected", ...Array<string>(7).fill("retrying"), "connected"]);
    expect(ctx.statuses[2]?.error).toMatch(/^409 Conflict: another process is polling this bot token or a webhook is set/);
    expect(logger.entries.filter((e) => e.level === "error").map((e) => e.message)).toEqual(["Telegram polling failed; retrying"]);
  });

  it("stops at once while waiting to retry, and reports nothing after", async () => {
    fake.refuseToken();
    const { adapter } = make({ sleep: (_ms, signal) => abortableSleep(60 * 60_000, signal) });
    const ctx = recordingContext();
    await adapter.start(ctx);
    expect(ctx.statuses.map((s) => s.state)).toEqual(["connecting", "retrying"]);
    await adapter.stop();
    fake.refuseToken(false);
    expect(ctx.statuses.map((s) => s.state)).toEqual(["connecting", "retrying"]);
    expect(fake.callsOf("getMe")).toHaveLength(1);
  });

  it("stops at once while a set-up call is under way", async () => {
    const { adapter } = make();
    const ctx = recordingContext();
    const starting = adapter.start(ctx);
    await adapter.stop();
    await starting;
    expect(ctx.statuses).toEqual([{ state: "connecting" }]);
    expect(fake.callsOf("getUpdates")).toEqual([]);
  });
});
