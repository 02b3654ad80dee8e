import { describe, expect, it } from "vitest";
import type { DailyUsage, UsageOwner } from "@hermes/store";
import { budgetReachedReply, dailyBudgetStatus, formatUsd, resetText, todayUsageLine } from "./daily-budget.js";

const ada = { platform: "telegram", userId: "7" };
const at = (iso: string) => Date.parse(iso);

/** Spend per user and day, as the store keeps it. */
function usageOf(spend: Record<string, number>) {
  const asked: string[] = [];
  return {
    asked,
    async forUserOnDay(owner: UsageOwner, day: string): Promise<DailyUsage> {
      asked.push(`${owner.platform}:${owner.userId}:${day}`);
      return { day, runs: 1, tokens: 1, costUsd: spend[`${owner.platform}:${owner.userId}:${day}`] ?? 0 };
    },
  };
}

describe("resetText", () => {
  it("counts hours and minutes to the next 00:00 UTC", () => {
    expect(resetText(at("2026-12-02T20:35:00Z"))).toBe("at 00:00 UTC, in 3 h 25 min");
    expect(resetText(at("2026-12-02T21:00:00Z"))).toBe("at 00:00 UTC, in 3 h");
    expect(resetText(at("2026-12-02T23:50:00Z"))).toBe("at 00:00 UTC, in 10 min");
  });

  it("rounds a part of a minute up, so it never says 0", () => {
    expect(resetText(at("2026-12-02T23:59:59.999Z"))).toBe("at 00:00 UTC, in 1 min");
    expect(resetText(at("2026-12-02T23:58:30Z"))).toBe("at 00:00 UTC, in 2 min");
  });

  it("says a whole day just after midnight", () => {
    expect(resetText(at("2026-12-03T00:00:00Z"))).toBe("at 00:00 UTC, in 24 h");
  });
});

describe("dailyBudgetStatus", () => {
  it("compares today's spend with the budget: reached at the budget itself", async () => {
    const usage = usageOf({ "telegram:7:2026-12-02": 1 });
    expect(await dailyBudgetStatus(usage, ada, 1, at("2026-12-02T12:00:00Z"))).toEqual({ kind: "reached", spentUsd: 1, budgetUsd: 1 });
    expect(await dailyBudgetStatus(usage, ada, 1.01, at("2026-12-02T12:00:00Z"))).toEqual({ kind: "within", spentUsd: 1, budgetUsd: 1.01 });
  });

  it("starts afresh on the next UTC day", async () => {
    const usage = usageOf({ "telegram:7:2026-12-02": 5 });
    expect((await dailyBudgetStatus(usage, ada, 1, at("2026-12-02T23:59:59.999Z"))).kind).toBe("reached");
    expect(await dailyBudgetStatus(usage, ada, 1, at("2026-12-03T00:00:00Z"))).toEqual({ kind: "within", spentUsd: 0, budgetUsd: 1 });
    expect(usage.asked).toEqual(["telegram:7:2026-12-02", "telegram:7:2026-12-03"]);
  });

  it("reports the spend without a budget", async () => {
    const usage = usageOf({ "telegram:7:2026-12-02": 0.5 });
    expect(await dailyBudgetStatus(usage, ada, undefined, at("2026-12-02T08:00:00Z"))).toEqual({ kind: "none", spentUsd: 0.5 });
  });
});

describe("what people are told", () => {
  const now = at("2026-12-02T20:35:00Z");

  it("tells a person over budget when it resets", () => {
    expect(budgetReachedReply({ spentUsd: 1.0123, budgetUsd: 1 }, now)).toBe(
      "You've reached today's budget ($1.01 of $1.00), so I can't answer until it resets at 00:00 UTC, in 3 h 25 min.",
    );
  });

  it("shows today's spend against the budget in /usage", () => {
    expect(todayUsageLine({ kind: "within", spentUsd: 0.0123, budgetUsd: 1 }, now)).toBe("Today: $0.0123 of $1.00 (resets at 00:00 UTC, in 3 h 25 min)");
    expect(todayUsageLine({ kind: "reached", spentUsd: 0.002, budgetUsd: 0.001 }, now)).toBe("Today: $0.0020 of $0.0010 (reached; resets at 00:00 UTC, in 3 h 25 min)");
    expect(todayUsageLine({ kind: "none", spentUsd: 0 }, now)).toBe("Today: $0.0000 (no daily budget)");
  });

  it("keeps four decimals under a dollar and two above", () => {
    expect(formatUsd(0.00042)).toBe("$0.0004");
    expect(formatUsd(12.345)).toBe("$12.35");
  });
});
