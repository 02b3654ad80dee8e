import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AdapterStatus } from "@hermes/gateway";
import type { Update } from "grammy/types";
import { startFakeTelegram, type FakeTelegram } from "../../../test/fakes/telegram/index.js";
import { createBotApi } from "./bot-api.js";
import { ConnectionHealth } from "./connection-health.js";
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
  const statuses: AdapterStatus[] = [];
  const health = new ConnectionHealth({ report: (status) => void statuses.push(status), logger, now: () => 0, random: () => 0.5, signal: new AbortController().signal });
  poller = new UpdatePoller({
    api: createBotApi({ token: fake.token, apiRoot: fake.apiRoot }),
    handle,
    health,
    logger,
    allowedUpdates: ["message"],
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
  });
  return { poller, ended: poller.run(), logger, sleeps, statuses };
}

const CONFLICT = { error_code: 409, description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running" };

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
    // The first call answers at once, so the adapter knows it is connected without waiting out a long poll.
    expect(fake.callsOf("getUpdates")[0]?.params.timeout).toBe(0);
  });

  it("lets work that is waiting run between the updates of one batch", async () => {
    const order: string[] = [];
    const both = deferred();
    startPoller(async (update) => {
      order.push(`update ${update.update_id}`);
      // Stands for a model answer or a reply that became ready while the update was handed over.
      if (order.length === 1) setImmediate(() => order.push("waiting work"));
      if (order.filter((entry) => entry.startsWith("update")).length === 2) both.resolve();
    });
    const first = fake.userWrites({ text: "one" }).update;
    const second = fake.userWrites({ text: "two" }).update;
    await both.promise;
    expect(order).toEqual([`update ${first.update_id}`, "waiting work", `update ${second.update_id}`]);
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

  it("keeps retrying a 409 conflict long past the old four attempts, with a capped schedule, and recovers", async () => {
    fake.failNext("getUpdates", CONFLICT, { times: 8 });
    const handled: number[] = [];
    const { sleeps, logger, statuses } = startPoller(async (update) => void handled.push(update.update_id));
    const { update } = fake.userWrites({ text: "finally" });
    await fake.waitForConfirmation(update);
    expect(sleeps).toEqual([5000, 10000, 20000, 40000, 60000, 60000, 60000, 60000]);
    expect(handled).toEqual([update.update_id]);
    const cause = "409 Conflict: another process is polling this bot token or a webhook is set; stop the other instance or delete its webhook (Telegram: terminated by other getUpdates request; make sure that only one bot instance is running)";
    expect(statuses.slice(0, 2)).toEqual([
      { state: "retrying", error: cause, retryAt: 5000 },
      { state: "retrying", error: cause, retryAt: 10000 },
    ]);
    expect(statuses.map((s) => s.state)).toEqual([...Array<string>(8).fill("retrying"), "connected"]);
    // An error when the conflict starts, quieter lines while it goes on, and one line when it is over.
    expect(logger.entries.filter((e) => e.level !== "debug").map((e) => [e.level, e.message])).toEqual([
      ["error", "Telegram polling failed; retrying"],
      ["info", "Telegram connection recovered"],
    ]);
    expect(logger.entries[0]?.fields).toMatchObject({ error: cause, failures: 1, retryInMs: 5000 });
  });

  it("ends the run on a refused token, so the adapter can set the bot up again, and keeps its offset", async () => {
    const first = fake.userWrites({ text: "before" }).update;
    const handled: number[] = [];
    const { ended, statuses, sleeps, logger } = startPoller(async (update) => void handled.push(update.update_id));
    await fake.waitForConfirmation(first);
    await fake.waitForHeldPoll();
    fake.refuseToken();
    expect(await ended).toBe("unauthorized");
    expect(statuses).toEqual([
      { state: "connected" },
      { state: "retrying", error: "401 Unauthorized: Telegram refused the bot token; check TELEGRAM_BOT_TOKEN", retryAt: 1000 },
    ]);
    expect(sleeps).toEqual([1000]);
    expect(logger.entries.find((e) => e.level === "error")?.fields.error).toContain("check TELEGRAM_BOT_TOKEN");
    fake.refuseToken(false);
    const second = fake.userWrites({ text: "after" }).update;
    const again = poller?.run();
    await fake.waitForConfirmation(second);
    expect(handled).toEqual([first.update_id, second.update_id]);
    expect(statuses.at(-1)).toEqual({ state: "connected" });
    const calls = fake.callsOf("getUpdates");
    const refusedAt = calls.findIndex((c) => c.outcome === 401);
    // The refused call was a long poll; the next run starts with a quick call from where the last one stopped.
    expect(calls[refusedAt]?.params).toMatchObject({ timeout: 30, offset: first.update_id + 1 });
    expect(calls[refusedAt + 1]?.params).toMatchObject({ timeout: 0, offset: first.update_id + 1 });
    await poller?.stop();
    expect(await again).toBe("stopped");
  });

  it("backs off on server errors and recovers", async () => {
    fake.failNext("getUpdates", { error_code: 502, description: "Bad Gateway" }, { times: 2 });
    const handled: Update[] = [];
    const { sleeps, logger, statuses } = startPoller(async (update) => void handled.push(update));
    const { update } = fake.userWrites({ text: "after the outage" });
    await fake.waitForConfirmation(update);
    expect(sleeps).toEqual([1000, 2000]);
    expect(handled.map((u) => u.update_id)).toEqual([update.update_id]);
    expect(statuses).toEqual([
      { state: "retrying", error: "cannot reach Telegram: 502 Bad Gateway", retryAt: 1000 },
      { state: "retrying", error: "cannot reach Telegram: 502 Bad Gateway", retryAt: 2000 },
      { state: "connected" },
    ]);
    expect(logger.entries.map((e) => [e.level, e.message])).toEqual([
      ["warn", "Telegram polling failed; retrying"],
      ["debug", "Telegram polling failed; retrying"],
      ["info", "Telegram connection recovered"],
    ]);
  });

  it("retries when the server cannot be reached at all", async () => {
    await fake.close();
    const sleeps: number[] = [];
    const current = startPoller(async () => {}, sleeps);
    while (sleeps.length < 2) await new Promise((resolve) => setImmediate(resolve));
    await current.poller.stop();
    expect(await current.ended).toBe("stopped");
    expect(current.logger.entries[0]?.fields.error).toMatch(/^cannot reach Telegram: network error/);
    expect(current.statuses.slice(0, 2).map((s) => s.state)).toEqual(["retrying", "retrying"]);
    expect(current.statuses.some((s) => s.state !== "retrying")).toBe(false);
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
