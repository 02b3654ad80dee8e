import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Update } from "grammy/types";
import { startFakeTelegram, type FakeTelegram } from "../../../test/fakes/telegram/index.js";
import { createBotApi } from "./bot-api.js";
import { recordingLogger } from "./recording-logger.js";
import { UpdatePoller, type UpdatePollerOptions } from "./update-poller.js";

let fake: FakeTelegram;
let poller: UpdatePoller | undefined;

beforeEach(async () => {
  fake = await startFakeTelegram();
});

afterEach(async () => {
  await poller?.stop();
  poller = undefined;
  await fake.close();
});

function startPoller(handle: UpdatePollerOptions["handle"], sleeps: number[] = [], logger = recordingLogger()) {
  poller = new UpdatePoller({
    api: createBotApi({ token: fake.token, apiRoot: fake.apiRoot }),
    handle,
    logger,
    allowedUpdates: ["message"],
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
  });
  return { poller, ended: poller.start(), logger, sleeps };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("UpdatePoller against the fake Bot API", () => {
  it("confirms an update to Telegram only after it was handed over", async () => {
    const persisted = deferred();
    const started = deferred();
    const handled: number[] = [];
    startPoller(async (update) => {
      handled.push(update.update_id);
      started.resolve();
      await persisted.promise;
    });
    const { update } = fake.userWrites({ text: "hi" });
    await started.promise;
    expect(fake.confirmedOffset()).toBeLessThanOrEqual(update.update_id);
    persisted.resolve();
    await fake.waitForConfirmation(update);
    expect(fake.confirmedOffset()).toBe(update.update_id + 1);
    expect(handled).toEqual([update.update_id]);
  });

  it("fetches an update again when the gateway could not persist it", async () => {
    const handled: number[] = [];
    const { logger, sleeps } = startPoller(async (update) => {
      handled.push(update.update_id);
      if (handled.length === 1) throw new Error("database is locked");
    });
    const first = fake.userWrites({ text: "one" }).update;
    await fake.waitForConfirmation(first);
    expect(handled).toEqual([first.update_id, first.update_id]);
    expect(sleeps).toEqual([1000]);
    expect(logger.entries.filter((e) => e.level === "error").map((e) => e.fields.error)).toEqual(["database is locked"]);
  });

  it("retries a 409 conflict a few times, then stops polling with an error that says what to do", async () => {
    fake.failNext("getUpdates", { error_code: 409, description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running" }, { times: 100 });
    const { ended, sleeps, logger } = startPoller(async () => {});
    expect(await ended).toBe("conflict");
    expect(sleeps).toEqual([5000, 10000, 20000, 40000]);
    expect(fake.callsOf("getUpdates").map((c) => c.outcome)).toEqual([409, 409, 409, 409, 409]);
    const last = logger.entries.at(-1);
    expect(last?.level).toBe("error");
    expect(last?.message).toContain("another process keeps polling this bot token");
  });

  it("backs off on server errors and recovers", async () => {
    fake.failNext("getUpdates", { error_code: 502, description: "Bad Gateway" }, { times: 2 });
    const handled: Update[] = [];
    const { sleeps, logger } = startPoller(async (update) => void handled.push(update));
    const { update } = fake.userWrites({ text: "after the outage" });
    await fake.waitForConfirmation(update);
    expect(sleeps).toEqual([1000, 2000]);
    expect(handled.map((u) => u.update_id)).toEqual([update.update_id]);
    expect(logger.entries.some((e) => e.message === "Telegram polling recovered")).toBe(true);
  });

  it("retries when the server cannot be reached at all", async () => {
    await fake.close();
    const sleeps: number[] = [];
    const current = startPoller(async () => {}, sleeps);
    while (sleeps.length < 2) await new Promise((resolve) => setImmediate(resolve));
    await current.poller.stop();
    expect(await current.ended).toBe("stopped");
    expect(current.logger.entries[0]?.fields.error).toMatch(/^network error/);
    expect(JSON.stringify(current.logger.entries)).not.toContain(fake.token);
  });

  it("stops a held long poll at once and confirms what it handed over", async () => {
    let stopping: Promise<void> | undefined;
    const current = startPoller(async () => {
      stopping = current.poller.stop();
    });
    const { update } = fake.userWrites({ text: "last words" });
    while (!stopping) await new Promise((resolve) => setImmediate(resolve));
    await stopping;
    expect(await current.ended).toBe("stopped");
    expect(fake.confirmedOffset()).toBe(update.update_id + 1);
  });
});
