import { describe, expect, it } from "vitest";
import { retryDelayMs, settlesWithin } from "./retry-policy.js";

describe("retryDelayMs", () => {
  const policy = { baseMs: 1_000, maxMs: 60_000 };

  it("doubles from the base delay and never exceeds the cap", () => {
    const middle = { ...policy, random: () => 0.5 };
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map((failures) => retryDelayMs(failures, middle))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it("spreads each delay by a quarter either way, still within the cap", () => {
    expect(retryDelayMs(1, { ...policy, random: () => 0 })).toBe(750);
    expect(retryDelayMs(1, { ...policy, random: () => 0.999 })).toBe(1_250);
    expect(retryDelayMs(30, { ...policy, random: () => 0.999 })).toBe(60_000);
    expect(retryDelayMs(30, { ...policy, random: () => 0 })).toBe(45_000);
  });

  it("waits longer when Slack's Retry-After asks for it", () => {
    expect(retryDelayMs(1, { ...policy, random: () => 0.5 }, 120_000)).toBe(120_000);
    expect(retryDelayMs(1, { ...policy, random: () => 0.5 }, 10)).toBe(1_000);
  });
});

describe("settlesWithin", () => {
  it("tells whether a promise settled in time, a rejection counting as settled", async () => {
    expect(await settlesWithin(Promise.reject(new Error("refused")), 1_000)).toBe(true);
    expect(await settlesWithin(new Promise(() => {}), 1)).toBe(false);
  });
});
