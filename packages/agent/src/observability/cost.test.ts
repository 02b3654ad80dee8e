import { describe, it, expect } from "vitest";
import type { Usage } from "@mariozechner/pi-ai";
import { addUsage, CostTracker, emptyUsageTotals } from "./cost.js";

function usage(input: number, output: number, costTotal: number, extra: Partial<Usage> = {}): Usage {
  return {
    input,
    output,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: input + output,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: costTotal },
    ...extra,
  };
}

describe("addUsage", () => {
  it("returns a new object with the usage added", () => {
    const start = emptyUsageTotals();
    const next = addUsage(start, usage(100, 20, 0.5, { cacheRead: 7, cacheWrite: 3, totalTokens: 130 }));
    expect(start).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, costUsd: 0 });
    expect(next).toEqual({ input: 100, output: 20, cacheRead: 7, cacheWrite: 3, totalTokens: 130, costUsd: 0.5 });
  });

  it("counts missing, negative or non-finite fields as zero and derives a missing total", () => {
    const malformed = { input: 10, output: -4, cacheRead: Number.NaN, cacheWrite: 2 } as unknown as Usage;
    expect(addUsage(emptyUsageTotals(), malformed)).toEqual({
      input: 10,
      output: 0,
      cacheRead: 0,
      cacheWrite: 2,
      totalTokens: 12,
      costUsd: 0,
    });
    expect(addUsage(emptyUsageTotals(), undefined as unknown as Usage)).toEqual(emptyUsageTotals());
  });
});

describe("CostTracker", () => {
  it("accumulates overall and per model", () => {
    const tracker = new CostTracker();
    const sonnet = { provider: "anthropic", id: "claude-sonnet" };
    const mini = { provider: "openai", id: "gpt-mini" };
    tracker.add(usage(100, 10, 0.25), sonnet);
    tracker.add(usage(50, 5, 0.125), mini);
    tracker.add(usage(200, 20, 0.5), sonnet);

    expect(tracker.totals()).toEqual({
      input: 350,
      output: 35,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 385,
      costUsd: 0.875,
    });
    expect(tracker.byModel()).toEqual([
      {
        provider: "anthropic",
        model: "claude-sonnet",
        totals: { input: 300, output: 30, cacheRead: 0, cacheWrite: 0, totalTokens: 330, costUsd: 0.75 },
      },
      {
        provider: "openai",
        model: "gpt-mini",
        totals: { input: 50, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 55, costUsd: 0.125 },
      },
    ]);
  });

  it("keeps the same model id under different providers apart", () => {
    const tracker = new CostTracker();
    tracker.add(usage(1, 1, 0.01), { provider: "openrouter", id: "m" });
    tracker.add(usage(2, 2, 0.02), { provider: "direct", id: "m" });
    expect(tracker.byModel().map((entry) => [entry.provider, entry.model, entry.totals.input])).toEqual([
      ["direct", "m", 2],
      ["openrouter", "m", 1],
    ]);
  });

  it("hands out copies so callers cannot change its totals", () => {
    const tracker = new CostTracker();
    tracker.add(usage(1, 1, 0.25), { provider: "p", id: "m" });
    tracker.totals().input = 999;
    const first = tracker.byModel()[0];
    if (first !== undefined) first.totals.costUsd = 999;
    expect(tracker.totals().input).toBe(1);
    expect(tracker.byModel()[0]?.totals.costUsd).toBe(0.25);
  });
});
