import { describe, expect, it } from "vitest";
import { abortableSleep, backoffMs, CONFLICT_SCHEDULE } from "./backoff.js";

describe("backoff", () => {
  it("doubles from one second up to thirty, spread by a quarter either way", () => {
    expect([0, 1, 2, 5, 10].map((attempt) => backoffMs(attempt, () => 0.5))).toEqual([1000, 2000, 4000, 30000, 30000]);
    expect(backoffMs(0, () => 0)).toBe(750);
    expect(backoffMs(0, () => 0.999999)).toBe(1250);
  });

  it("spaces 409 conflicts out more slowly, still capped", () => {
    expect([0, 1, 2, 3, 4, 50].map((attempt) => backoffMs(attempt, () => 0.5, CONFLICT_SCHEDULE))).toEqual([5000, 10000, 20000, 40000, 60000, 60000]);
  });

  it("cuts a sleep short when its signal aborts", async () => {
    const controller = new AbortController();
    const sleeping = abortableSleep(60_000, controller.signal);
    controller.abort();
    await expect(sleeping).resolves.toBeUndefined();
    await expect(abortableSleep(60_000, controller.signal)).resolves.toBeUndefined();
  });
});
