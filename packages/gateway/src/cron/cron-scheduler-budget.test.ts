import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { Store } from "@hermes/store";
import { storeFixtures } from "../../../store/src/test-fixtures.js";
import { ManualClock } from "../outbound/manual-clock.js";
import { createCronJob, type CronChat } from "./cron-jobs.js";
import { createCronScheduler, type CronScheduler } from "./cron-scheduler.js";

const T0 = Date.UTC(2026, 11, 2, 20, 35, 0);
const MIN = 60_000;
const CHAT: CronChat = { platform: "telegram", chatId: "100", chatType: "dm", creatorId: "7", sessionKey: "agent:main:telegram:dm:100" };

const fixtures = storeFixtures("sqlite");
let store: Store;
let clock: ManualClock;
let cron: CronScheduler;
let enqueued: Array<{ inboundId: number; sessionKey: string }>;
let spent: boolean;

beforeEach(async () => {
  store = (await fixtures.openNew()).store;
  clock = new ManualClock();
  await clock.advance(T0);
  enqueued = [];
  spent = true;
  cron = createCronScheduler({
    store,
    queue: { enqueue: async (job) => void enqueued.push(job) },
    isActive: () => true,
    overBudget: async (platform, userId) => spent && platform === "telegram" && userId === "7",
    logger: silentLogger,
    clock,
    pollMs: 30_000,
  });
});
afterEach(async () => {
  await cron.stop();
  await fixtures.cleanup();
});

/** The slot's run answered (over budget, the run processor answers with the budget notice). */
async function answerLast(): Promise<void> {
  const run = enqueued.at(-1);
  if (run) await store.inbound.setStatus(run.inboundId, "answered");
}

async function slot(): Promise<void> {
  await clock.advance(MIN);
  await cron.tick();
  await answerLast();
}

describe("a scheduled task over its creator's daily budget", () => {
  it("runs its first slot of the UTC day (which tells the chat), then lets the day's later slots pass silently", async () => {
    const created = await createCronJob(store.cronJobs, CHAT, { schedule: "every 1m", prompt: "say ping" }, T0);
    if (!created.ok) throw new Error(created.error);
    for (let i = 0; i < 3; i += 1) await slot();
    expect(enqueued).toHaveLength(1);
    expect(await store.cronJobs.get(created.job.id)).toMatchObject({ lastStatus: "over_budget", runs: 0 });

    // A new UTC day: the first refused slot runs (and tells the chat) again.
    await clock.advance(Date.UTC(2026, 11, 3, 0, 0, 30) - clock.now());
    await slot();
    await slot();
    expect(enqueued).toHaveLength(2);

    // Under budget again: every slot runs.
    spent = false;
    await slot();
    await slot();
    expect(enqueued).toHaveLength(4);
    expect(await store.cronJobs.get(created.job.id)).toMatchObject({ lastStatus: "ran", runs: 2 });
  });
});
