import { afterEach, describe, expect, it } from "vitest";
import type { CompleteRunInput } from "./complete-run.js";
import type { Store } from "./store.js";
import { dmSession, STORE_DIALECTS, storeFixtures } from "./test-fixtures.js";
import { utcDayOf } from "./usage.js";

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  const run = { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 500, cacheWriteTokens: 50, costUsd: 0.0125 };
  const zero = { runs: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };

  describe("usage", () => {
    it("is zero for a session without runs", async () => {
      const { store } = await fixtures.openNew();
      expect(await store.usage.forSession("none")).toEqual({ sessionId: "none", ...zero });
      expect(await store.usage.forUser("telegram", "nobody")).toEqual(zero);
    });

    it("adds up runs per session", async () => {
      const { store } = await fixtures.openNew();
      const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
      await store.usage.add(session.id, run);
      await store.usage.add(session.id, { ...run, costUsd: 0.0075, outputTokens: 100 });
      expect(await store.usage.forSession(session.id)).toEqual({
        sessionId: session.id,
        runs: 2,
        inputTokens: 2000,
        outputTokens: 300,
        cacheReadTokens: 1000,
        cacheWriteTokens: 100,
        costUsd: 0.02,
      });
    });

    it("totals a user's sessions on one platform", async () => {
      const { store } = await fixtures.openNew();
      const { session: first } = await store.sessions.getOrCreateActive(dmSession("u1"));
      await store.sessions.end(first.key);
      const { session: second } = await store.sessions.getOrCreateActive(dmSession("u1"));
      const { session: other } = await store.sessions.getOrCreateActive(dmSession("u2"));
      await store.usage.add(first.id, run);
      await store.usage.add(second.id, run);
      await store.usage.add(other.id, run);

      const totals = await store.usage.forUser("telegram", "u1");
      expect(totals).toEqual({ runs: 2, inputTokens: 2000, outputTokens: 400, cacheReadTokens: 1000, cacheWriteTokens: 100, costUsd: 0.025 });
      expect(await store.usage.forUser("discord", "u1")).toEqual(zero);
    });
  });

  describe("usage per user per UTC day", () => {
    const ada = { platform: "telegram", userId: "u1" };
    const day = utcDayOf;

    async function answered(store: Store, userId: string, messageId: string, costUsd: number): Promise<CompleteRunInput> {
      const { session } = await store.sessions.getOrCreateActive(dmSession(userId));
      const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId, payload: "{}", sessionKey: session.key, status: "queued" });
      const input: CompleteRunInput = {
        inboundId: record.id,
        sessionId: session.id,
        messages: [],
        usage: { ...run, costUsd },
        usageOwner: { platform: "telegram", userId },
        deliveries: [],
      };
      expect((await store.completeRun(input)).ok).toBe(true);
      return input;
    }

    it("is zero for a day without runs", async () => {
      const { store } = await fixtures.openNew();
      expect(await store.usage.forUserOnDay(ada, "2023-11-14")).toEqual({ day: "2023-11-14", runs: 0, tokens: 0, costUsd: 0 });
    });

    it("adds up one user's runs across two sessions of the same day, without mixing users", async () => {
      const { store } = await fixtures.openNew();
      await answered(store, "u1", "m1", 0.01);
      await store.sessions.end("agent:main:telegram:dm:u1");
      await answered(store, "u1", "m2", 0.02);
      await answered(store, "u2", "m3", 0.5);

      const today = day(fixtures.now());
      const mine = await store.usage.forUserOnDay(ada, today);
      expect(mine).toMatchObject({ day: today, runs: 2, tokens: 2 * 1750 });
      expect(mine.costUsd).toBeCloseTo(0.03, 10);
      expect((await store.usage.forUserOnDay({ platform: "telegram", userId: "u2" }, today)).costUsd).toBeCloseTo(0.5, 10);
      expect((await store.usage.forUserOnDay({ platform: "discord", userId: "u1" }, today)).runs).toBe(0);
    });

    it("starts a new total at 00:00 UTC", async () => {
      const { store } = await fixtures.openNew();
      const midnight = Date.UTC(2023, 10, 15);
      fixtures.advance(midnight - 1 - fixtures.now());
      await answered(store, "u1", "late", 0.01);
      fixtures.advance(1);
      await answered(store, "u1", "early", 0.04);

      expect(await store.usage.forUserOnDay(ada, "2023-11-14")).toMatchObject({ runs: 1, costUsd: 0.01 });
      expect(await store.usage.forUserOnDay(ada, "2023-11-15")).toMatchObject({ runs: 1, costUsd: 0.04 });
    });

    it("counts a run once even when it is completed twice", async () => {
      const { store } = await fixtures.openNew();
      const input = await answered(store, "u1", "m1", 0.01);
      expect(await store.completeRun(input)).toEqual({ ok: false, reason: "already_finished" });
      expect(await store.usage.forUserOnDay(ada, day(fixtures.now()))).toMatchObject({ runs: 1, costUsd: 0.01 });
    });

    it("leaves the daily total alone when the run names no owner", async () => {
      const { store } = await fixtures.openNew();
      const input = await answered(store, "u1", "m1", 0.01);
      const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId: "m2", payload: "{}", sessionKey: "agent:main:telegram:dm:u1", status: "queued" });
      expect((await store.completeRun({ ...input, inboundId: record.id, usageOwner: undefined })).ok).toBe(true);
      expect(await store.usage.forUserOnDay(ada, day(fixtures.now()))).toMatchObject({ runs: 1 });
      expect(await store.usage.forSession(input.sessionId)).toMatchObject({ runs: 2 });
    });

    it("gives the UTC calendar day of a timestamp", () => {
      expect(utcDayOf(Date.UTC(2024, 1, 29, 23, 59, 59, 999))).toBe("2024-02-29");
      expect(utcDayOf(Date.UTC(2024, 2, 1))).toBe("2024-03-01");
    });
  });
});
