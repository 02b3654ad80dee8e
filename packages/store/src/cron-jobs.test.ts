import { afterEach, describe, expect, it } from "vitest";
import type { Store } from "./store.js";
import { STORE_DIALECTS, storeFixtures } from "./test-fixtures.js";
import type { CronJobRecord, NewCronJob } from "./types.js";

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  const MINUTE = 60_000;

  function job(id: string, overrides: Partial<NewCronJob> = {}): NewCronJob {
    return {
      id,
      platform: "telegram",
      chatId: "-100",
      chatType: "group",
      creatorId: "42",
      sessionKey: "agent:main:telegram:group:-100",
      schedule: "every 1h",
      kind: "every",
      prompt: "Summarize the news",
      nextRunAt: fixtures.now() + 60 * MINUTE,
      createdAt: fixtures.now(),
      ...overrides,
    };
  }

  async function created(store: Store, id: string, overrides: Partial<NewCronJob> = {}): Promise<CronJobRecord> {
    const input = job(id, overrides);
    await store.cronJobs.create(input);
    return { ...input, runs: 0 };
  }

  describe("cron jobs", () => {
    it("stores every field of a new job, with no run yet", async () => {
      const { store } = await fixtures.openNew();
      const threaded = await created(store, "a1b2c3d4", { threadId: "77", platform: "slack", chatId: "C1", chatType: "channel" });
      const once = await created(store, "z9y8x7w6", { kind: "once", schedule: "2026-01-01T09:00:00Z", nextRunAt: 1_767_258_000_000 });
      expect(await store.cronJobs.get("a1b2c3d4")).toEqual(threaded);
      const stored = await store.cronJobs.get("z9y8x7w6");
      expect(stored).toEqual(once);
      for (const field of ["threadId", "lastRunAt", "lastStatus"]) expect(stored).not.toHaveProperty(field);
      expect(await store.cronJobs.get("nothere1")).toBeUndefined();
    });

    it("refuses an id a person could not type back, and a taken one, storing nothing", async () => {
      const { store } = await fixtures.openNew();
      for (const id of ["short", "UPPERCA1", "has-dash", "ninechars"]) {
        await expect(store.cronJobs.create(job(id))).rejects.toThrow(RangeError);
        expect(await store.cronJobs.get(id)).toBeUndefined();
      }
      const first = await created(store, "taken001");
      await expect(store.cronJobs.create(job("taken001", { prompt: "another" }))).rejects.toThrow();
      expect(await store.cronJobs.get("taken001")).toEqual(first);
    });

    it("lists a chat's jobs oldest first, every job with a limit, and removes one", async () => {
      const { store } = await fixtures.openNew();
      const now = fixtures.now();
      const second = await created(store, "second01", { createdAt: now + MINUTE });
      const first = await created(store, "first001", { createdAt: now });
      const elsewhere = await created(store, "other001", { chatId: "-200", createdAt: now + 2 * MINUTE });
      const otherPlatform = await created(store, "discord1", { platform: "discord", createdAt: now + 3 * MINUTE });
      expect(await store.cronJobs.listForChat("telegram", "-100")).toEqual([first, second]);
      expect(await store.cronJobs.listForChat("telegram", "-200")).toEqual([elsewhere]);
      expect(await store.cronJobs.listForChat("discord", "-100")).toEqual([otherPlatform]);
      expect(await store.cronJobs.listForChat("slack", "-100")).toEqual([]);
      expect(await store.cronJobs.listAll()).toEqual([first, second, elsewhere, otherPlatform]);
      expect(await store.cronJobs.listAll(2)).toEqual([first, second]);

      expect(await store.cronJobs.remove("first001")).toBe(true);
      expect(await store.cronJobs.remove("first001")).toBe(false);
      expect(await store.cronJobs.get("first001")).toBeUndefined();
      expect(await store.cronJobs.listForChat("telegram", "-100")).toEqual([second]);
    });

    it("finds the due jobs earliest first, ties by id, up to the limit, leaving out later and finished ones", async () => {
      const { store } = await fixtures.openNew();
      const now = fixtures.now();
      await created(store, "later001", { nextRunAt: now + 1 });
      await created(store, "done0001", { kind: "once", nextRunAt: null });
      await created(store, "tieb0001", { nextRunAt: now - MINUTE });
      await created(store, "oldest01", { nextRunAt: now - 10 * MINUTE });
      await created(store, "tiea0001", { nextRunAt: now - MINUTE });
      await created(store, "exactly1", { nextRunAt: now });
      const ids = async (at: number, limit: number): Promise<string[]> => (await store.cronJobs.due(at, limit)).map((due) => due.id);
      expect(await ids(now, 10)).toEqual(["oldest01", "tiea0001", "tieb0001", "exactly1"]);
      expect(await ids(now, 2)).toEqual(["oldest01", "tiea0001"]);
      expect(await ids(now - 11 * MINUTE, 10)).toEqual([]);
      // The job due next, for a scheduler to sleep until its slot.
      expect(await ids(Number.MAX_SAFE_INTEGER, 1)).toEqual(["oldest01"]);
      expect(await ids(Number.MAX_SAFE_INTEGER, 10)).toEqual(["oldest01", "tiea0001", "tieb0001", "exactly1", "later001"]);
      await expect(store.cronJobs.due(now, 0)).rejects.toThrow(RangeError);
    });

    it("finds only the due jobs of the platforms asked for", async () => {
      const { store } = await fixtures.openNew();
      const now = fixtures.now();
      await created(store, "console1", { platform: "console", nextRunAt: now - 10 * MINUTE });
      await created(store, "telegra1", { platform: "telegram", nextRunAt: now - MINUTE });
      await created(store, "discord1", { platform: "discord", nextRunAt: now });
      const ids = async (platforms?: readonly string[]): Promise<string[]> => (await store.cronJobs.due(now, 10, platforms)).map((due) => due.id);
      expect(await ids()).toEqual(["console1", "telegra1", "discord1"]);
      expect(await ids(["telegram", "discord"])).toEqual(["telegra1", "discord1"]);
      expect(await ids(["slack"])).toEqual([]);
      expect(await ids([])).toEqual([]);
    });

    it("moves a slot only from the expected one, counting runs that ran, and ends a one-shot", async () => {
      const { store } = await fixtures.openNew();
      const now = fixtures.now();
      const input = await created(store, "hourly01", { nextRunAt: now });
      const ran = { nextRunAt: now + 60 * MINUTE, lastRunAt: now, lastStatus: "ran" } as const;
      expect(await store.cronJobs.advance("hourly01", now - 1, ran)).toBe(false);
      expect(await store.cronJobs.advance("hourly01", null, ran)).toBe(false);
      expect(await store.cronJobs.advance("nothere1", now, ran)).toBe(false);
      expect(await store.cronJobs.get("hourly01")).toEqual(input);

      expect(await store.cronJobs.advance("hourly01", now, ran)).toBe(true);
      expect(await store.cronJobs.advance("hourly01", now, ran)).toBe(false);
      expect(await store.cronJobs.get("hourly01")).toEqual({ ...input, nextRunAt: now + 60 * MINUTE, lastRunAt: now, lastStatus: "ran", runs: 1 });
      const skipped = { nextRunAt: now + 120 * MINUTE, lastRunAt: now + 60 * MINUTE, lastStatus: "skipped" } as const;
      expect(await store.cronJobs.advance("hourly01", now + 60 * MINUTE, skipped)).toBe(true);
      expect(await store.cronJobs.get("hourly01")).toMatchObject({ nextRunAt: now + 120 * MINUTE, lastStatus: "skipped", runs: 1 });
      // Paused (its chat is gone): no next run, and no run counted.
      await created(store, "paused01", { nextRunAt: now });
      expect(await store.cronJobs.advance("paused01", now, { nextRunAt: null, lastRunAt: now, lastStatus: "paused" })).toBe(true);
      expect(await store.cronJobs.get("paused01")).toMatchObject({ nextRunAt: null, lastRunAt: now, lastStatus: "paused", runs: 0 });
      await store.cronJobs.remove("paused01");
      // A move to the slot it is at would let a second taker of that slot win too.
      expect(await store.cronJobs.advance("hourly01", now + 120 * MINUTE, { ...skipped, nextRunAt: now + 120 * MINUTE })).toBe(false);

      await created(store, "oneshot1", { kind: "once", nextRunAt: now });
      expect(await store.cronJobs.advance("oneshot1", now, { nextRunAt: null, lastRunAt: now, lastStatus: "ran" })).toBe(true);
      expect(await store.cronJobs.get("oneshot1")).toMatchObject({ nextRunAt: null, lastRunAt: now, lastStatus: "ran", runs: 1 });
      expect(await store.cronJobs.due(Number.MAX_SAFE_INTEGER, 10)).toEqual([expect.objectContaining({ id: "hourly01" })]);
      // A job with no next run is matched by null (null-safe), and by nothing else.
      expect(await store.cronJobs.advance("oneshot1", now, { nextRunAt: now + MINUTE, lastRunAt: now, lastStatus: "ran" })).toBe(false);
      expect(await store.cronJobs.advance("oneshot1", null, { nextRunAt: now + MINUTE, lastRunAt: now, lastStatus: "missed" })).toBe(true);
      expect(await store.cronJobs.get("oneshot1")).toMatchObject({ nextRunAt: now + MINUTE, lastStatus: "missed", runs: 1 });
    });

    it("lets one of two takers of the same slot win, on one store and on two stores of one database", async () => {
      const { store, file } = await fixtures.openNew();
      const other = await fixtures.open(file);
      const now = fixtures.now();
      for (const [index, stores] of [[store, store], [store, other]].entries()) {
        const id = `race000${index}`;
        await created(store, id, { nextRunAt: now });
        const outcomes = await Promise.all(
          [stores[0], stores[1]].map((taker, slot) => taker?.cronJobs.advance(id, now, { nextRunAt: now + (slot + 1) * MINUTE, lastRunAt: now, lastStatus: "ran" })),
        );
        expect(outcomes.filter((won) => won === true)).toHaveLength(1);
        const stored = await other.cronJobs.get(id);
        expect(stored).toMatchObject({ nextRunAt: outcomes[0] === true ? now + MINUTE : now + 2 * MINUTE, runs: 1 });
      }
    });
  });
});
