import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { Logger } from "@hermes/agent";
import type { Store } from "@hermes/store";
import { STORE_DIALECTS, storeFixtures } from "../../../store/src/test-fixtures.js";
import type { InboundMessage } from "../core/inbound.js";
import type { GatewayEvent } from "../core/ports.js";
import { ManualClock } from "../outbound/manual-clock.js";
import { createCronJob, describeJobList, type CronChat } from "./cron-jobs.js";
import { cronRunKey } from "./cron-run-key.js";
import { createCronScheduler, type CronScheduler } from "./cron-scheduler.js";

const T0 = Date.UTC(2026, 0, 5, 10, 0, 0);
const MIN = 60_000;
const CHAT: CronChat = { platform: "telegram", chatId: "100", chatType: "group", threadId: "5", creatorId: "7", sessionKey: "agent:main:telegram:group:100:5" };

let store: Store;
let clock: ManualClock;
let schedulers: CronScheduler[];
let enqueued: Array<{ inboundId: number; sessionKey: string }>;
let active: boolean;
let events: GatewayEvent[];
let warnings: Array<{ message: string; fields?: Record<string, unknown> }>;
const warningLogger: Logger = { ...silentLogger, warn: (message, fields) => void warnings.push({ message, fields }), child: () => warningLogger };

function scheduler(platforms?: () => readonly string[], creatorAllowed?: (platform: string, userId: string) => Promise<boolean>): CronScheduler {
  const made = createCronScheduler({
    store,
    creatorAllowed,
    queue: { enqueue: async (job) => void enqueued.push(job) },
    isActive: () => active,
    platforms,
    hooks: { emit: async (event) => (events.push(event), { blocked: false }) },
    logger: warningLogger,
    clock,
    pollMs: 30_000,
  });
  schedulers.push(made);
  return made;
}

async function job(schedule: string, createdAt = T0): Promise<string> {
  const created = await createCronJob(store.cronJobs, CHAT, { schedule, prompt: "say ping" }, createdAt);
  if (!created.ok) throw new Error(created.error);
  return created.job.id;
}

/** Answers a started run with a reply to the job's chat that the outbox sent, or gave up on with `error`. */
async function answer(run: { inboundId: number; sessionKey: string } | undefined, error?: string): Promise<void> {
  if (!run) throw new Error("no run to answer");
  await store.inbound.setStatus(run.inboundId, "answered");
  const reply = await store.deliveries.enqueue({ inboundId: run.inboundId, sessionKey: run.sessionKey, platform: "telegram", chatId: "100", threadId: "5", text: "pong", kind: "reply" });
  const claimed = await store.deliveries.claim({ owner: "outbox", platforms: ["telegram"], limit: 10, leaseMs: 30_000 });
  expect(claimed.map((row) => row.id)).toEqual([reply.id]);
  if (error === undefined) expect(await store.deliveries.markSent(reply.id, "outbox")).toBe(true);
  else expect(await store.deliveries.recordFailure(reply.id, "outbox", error, { final: true })).toBe(true);
}

async function payloadOf(inboundId: number): Promise<InboundMessage> {
  const record = await store.inbound.get(inboundId);
  if (!record) throw new Error(`no inbound ${inboundId}`);
  return JSON.parse(record.payload) as InboundMessage;
}

describe.each(STORE_DIALECTS)("the cron scheduler (%s)", (dialect) => {
  const fixtures = storeFixtures(dialect);
  beforeEach(async () => {
    store = (await fixtures.openNew()).store;
    clock = new ManualClock();
    await clock.advance(T0);
    schedulers = [];
    enqueued = [];
    active = true;
    events = [];
    warnings = [];
  });
  afterEach(async () => {
    await Promise.all(schedulers.map((scheduler) => scheduler.stop()));
    await fixtures.cleanup();
  });

  it("starts one run for a due slot: an inbound of the job's chat from its creator, queued on the job's own key", async () => {
    const id = await job("in 2s");
    const cron = scheduler();
    await cron.tick();
    expect(enqueued).toEqual([]);

    await clock.advance(2_000);
    await cron.tick();
    await cron.tick();
    expect(enqueued).toHaveLength(1);
    const [run] = enqueued;
    expect(run?.sessionKey).toBe(cronRunKey(id));
    const record = await store.inbound.get(run?.inboundId ?? -1);
    expect(record).toMatchObject({ platform: "telegram", messageId: `cron:${id}:${T0 + 2_000}`, status: "queued", sessionKey: `agent:main:cron:${id}` });
    const message = await payloadOf(run?.inboundId ?? -1);
    expect(message).toMatchObject({ chat: { id: "100", type: "group" }, threadId: "5", user: { id: "7" }, replyToId: "" });
    expect(message.text).toContain("say ping");
    expect(await store.cronJobs.get(id)).toMatchObject({ nextRunAt: null, lastStatus: "ran", lastRunAt: T0 + 2_000, runs: 1 });
  });

  it("lets only one of two schedulers start a slot (the compare-and-set on the next run)", async () => {
    const id = await job("every 1m");
    await clock.advance(MIN);
    const [a, b] = [scheduler(), scheduler()];
    await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
    expect(enqueued).toHaveLength(1);
    expect(await store.cronJobs.get(id)).toMatchObject({ nextRunAt: T0 + 2 * MIN, runs: 1 });
  });

  it("skips a slot while the job's previous run is unanswered, and starts the next one in a fresh session", async () => {
    const id = await job("every 1m");
    const cron = scheduler();
    await clock.advance(MIN);
    await cron.tick();
    expect(enqueued).toHaveLength(1);
    const first = enqueued[0]?.inboundId ?? -1;
    const session = await store.sessions.active(cronRunKey(id));
    if (!session) throw new Error("the run has no conversation");

    await clock.advance(MIN);
    await cron.tick();
    expect(enqueued).toHaveLength(1);
    expect(await store.cronJobs.get(id)).toMatchObject({ lastStatus: "skipped", nextRunAt: T0 + 3 * MIN, runs: 1 });

    await store.inbound.setStatus(first, "answered");
    await clock.advance(MIN);
    await cron.tick();
    expect(enqueued).toHaveLength(2);
    expect(await store.cronJobs.get(id)).toMatchObject({ lastStatus: "ran", runs: 2 });
    expect((await store.sessions.get(session.id))?.status).toBe("ended");
    const fresh = await store.sessions.active(cronRunKey(id));
    expect(fresh?.id).not.toBe(session.id);
    expect(events.map((event) => [event.type, event.sessionId, event.reason])).toEqual([
      ["session:start", session.id, undefined],
      ["session:end", session.id, "cron"],
      ["session:start", fresh?.id, undefined],
    ]);
  });

  it("leaves no message of a slot open when two schedulers skip it together", async () => {
    const id = await job("every 1m");
    await clock.advance(MIN);
    await scheduler().tick();
    expect(enqueued).toHaveLength(1);
    await clock.advance(MIN);
    const [a, b] = [scheduler(), scheduler()];
    await Promise.all([a.tick(), b.tick()]);
    expect(enqueued).toHaveLength(1);
    expect(await store.cronJobs.get(id)).toMatchObject({ lastStatus: "skipped", runs: 1 });
    // Only the first run is unanswered: the skipped slot's message was taken back.
    expect(await store.inbound.unanswered(cronRunKey(id))).toBe(1);
  });

  it("does not run again a slot whose message a crashed scheduler saved and the start-up's recovery answered", async () => {
    const id = await job("in 1m");
    await clock.advance(MIN);
    const saved = await store.inbound.recordIfNew({ platform: "telegram", messageId: `cron:${id}:${T0 + MIN}`, payload: "{}", sessionKey: cronRunKey(id), status: "queued" });
    await store.inbound.setStatus(saved.record.id, "answered");
    await scheduler().tick();
    expect(enqueued).toEqual([]);
    expect(await store.cronJobs.get(id)).toMatchObject({ nextRunAt: null, runs: 1 });
  });

  it("runs a one-shot missed by less than an hour when it starts", async () => {
    const id = await job("in 1m");
    await clock.advance(40 * MIN);
    await scheduler().tick();
    expect(enqueued).toHaveLength(1);
    expect(await store.cronJobs.get(id)).toMatchObject({ lastStatus: "ran", nextRunAt: null });
  });

  it("marks a one-shot missed by more than an hour and tells its chat once", async () => {
    const id = await job("in 1m");
    await clock.advance(2 * 60 * MIN);
    const [a, b] = [scheduler(), scheduler()];
    await Promise.all([a.tick(), b.tick()]);
    await a.tick();
    expect(enqueued).toEqual([]);
    expect(await store.cronJobs.get(id)).toMatchObject({ lastStatus: "missed", nextRunAt: null, runs: 0 });
    const notices = await store.deliveries.pending(10);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ platform: "telegram", chatId: "100", threadId: "5", kind: "notice" });
    expect(notices[0]?.text).toContain(`scheduled task ${id}`);
  });

  it("runs a recurring job whose slots passed while down once, then follows its schedule", async () => {
    const id = await job("every 10m");
    await clock.advance(65 * MIN);
    const cron = scheduler();
    await cron.tick();
    await cron.tick();
    expect(enqueued).toHaveLength(1);
    expect(await store.cronJobs.get(id)).toMatchObject({ lastStatus: "ran", nextRunAt: T0 + 70 * MIN, runs: 1 });
  });

  it("skips the slots of a job whose creator is no longer allowed, and runs it again once they are", async () => {
    const id = await job("every 10m");
    let allowed = false;
    const asked: string[] = [];
    const cron = scheduler(undefined, async (platform, userId) => (asked.push(`${platform}:${userId}`), allowed));
    await clock.advance(10 * MIN);
    await cron.tick();
    expect(asked).toEqual(["telegram:7"]);
    expect(enqueued).toEqual([]);
    expect(await store.inbound.unanswered(cronRunKey(id))).toBe(0);
    expect(await store.cronJobs.get(id)).toMatchObject({ lastStatus: "skipped", nextRunAt: T0 + 20 * MIN, runs: 0 });
    allowed = true;
    await clock.advance(10 * MIN);
    await cron.tick();
    expect(enqueued).toHaveLength(1);
    expect(await store.cronJobs.get(id)).toMatchObject({ lastStatus: "ran", nextRunAt: T0 + 30 * MIN, runs: 1 });
  });

  it("pauses a task whose last three answers could not be delivered for good, instead of starting another run", async () => {
    const id = await job("every 1m");
    const cron = scheduler();
    const errors = ["400 Bad Request: chat not found", "403 Forbidden: bot was kicked from the group chat", "400 Bad Request: chat not found"];
    for (const error of errors) {
      await clock.advance(MIN);
      await cron.tick();
      await answer(enqueued.at(-1), error);
    }
    expect(enqueued).toHaveLength(3);

    await clock.advance(MIN);
    await cron.tick();
    expect(enqueued).toHaveLength(3);
    expect(await store.inbound.unanswered(cronRunKey(id))).toBe(0);
    expect(await store.cronJobs.get(id)).toMatchObject({ nextRunAt: null, lastStatus: "paused", lastRunAt: T0 + 4 * MIN, runs: 3 });
    expect(warnings).toEqual([
      { message: expect.stringContaining("paused") as string, fields: expect.objectContaining({ jobId: id, lastDeliveryError: "400 Bad Request: chat not found" }) as Record<string, unknown> },
    ]);
    expect(describeJobList(await store.cronJobs.listForChat("telegram", "100"))).toContain(`${id} — every 1m — paused`);

    // Paused for good: later looks start nothing.
    await clock.advance(10 * MIN);
    await cron.tick();
    expect(enqueued).toHaveLength(3);
    expect(warnings).toHaveLength(1);
  });

  it("keeps a task running while one of its last three answers was delivered", async () => {
    const id = await job("every 1m");
    const cron = scheduler();
    for (const error of ["400 Bad Request: chat not found", undefined, "400 Bad Request: chat not found"]) {
      await clock.advance(MIN);
      await cron.tick();
      await answer(enqueued.at(-1), error);
    }
    await clock.advance(MIN);
    await cron.tick();
    expect(enqueued).toHaveLength(4);
    expect(await store.cronJobs.get(id)).toMatchObject({ nextRunAt: T0 + 5 * MIN, lastStatus: "ran", runs: 4 });
    expect(warnings).toEqual([]);
  });

  it("takes no slot while the gateway is not the active one", async () => {
    const id = await job("in 1m");
    active = false;
    await clock.advance(MIN);
    await scheduler().tick();
    expect(enqueued).toEqual([]);
    expect(await store.cronJobs.get(id)).toMatchObject({ nextRunAt: T0 + MIN, runs: 0 });
  });

  it("leaves a job of a platform this process does not run to the process that runs it", async () => {
    const id = await job("in 1m");
    await clock.advance(MIN);
    const consoleOnly = scheduler(() => ["console"]);
    await consoleOnly.tick();
    expect(enqueued).toEqual([]);
    expect(await store.cronJobs.get(id)).toMatchObject({ nextRunAt: T0 + MIN, runs: 0 });
    // Started, it sleeps a whole poll instead of looking again and again at the job it leaves.
    consoleOnly.start();
    await vi.waitFor(() => expect(clock.pendingTimers()).toBe(1));
    await clock.advance(29_000);
    expect(clock.pendingTimers()).toBe(1);
    expect(enqueued).toEqual([]);
  });

  it("is not held back by more overdue jobs of platforms it does not run than it looks at at once", async () => {
    for (let index = 0; index < 201; index += 1) {
      await store.cronJobs.create({ ...CHAT, id: `c${String(index).padStart(7, "0")}`, platform: "console", chatId: `c${index}`, schedule: "in 1m", kind: "once", prompt: "p", nextRunAt: T0 - MIN, createdAt: T0 - 2 * MIN });
    }
    const id = await job("in 1m");
    await clock.advance(MIN);
    await scheduler(() => ["telegram"]).tick();
    expect(enqueued).toHaveLength(1);
    expect(await store.cronJobs.get(id)).toMatchObject({ lastStatus: "ran", runs: 1 });
  });

  it("once started, sleeps until the next slot and wakes for a job created meanwhile", async () => {
    const cron = scheduler();
    cron.start();
    await vi.waitFor(() => expect(clock.pendingTimers()).toBe(1));
    await job("in 5s", clock.now());
    // The new job woke the scheduler, which now sleeps only until its slot.
    await vi.waitFor(() => expect(clock.pendingTimers()).toBe(1));
    await clock.advance(5_000);
    await vi.waitFor(() => expect(enqueued).toHaveLength(1));
  });
});
