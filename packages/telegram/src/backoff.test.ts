import { describe, expect, it } from "vitest";
import { abortableSleep, backoffMs } from "./backoff.js";

describe("backoff", () => {
  it("doubles from one second up to thirty, spread by a quarter either way", () => {
    expect([0, 1, 2, 5, 10].map((attempt) => backoffMs(attempt, () => 0.5))).toEqual([1000, 2000, 4000, 30000, 30000]);
    expect(backoffMs(0, () => 0)).toBe(750);
    expect(backoffMs(0, () => 0.999999)).toBe(1250);
  });

  it("cuts a sleep short when its signal aborts", async () => {
    const controller = new AbortController();
    const sleeping = abortableSleep(60_000, controller.signal);
    controller.abort();
    await expect(sleeping).resolves.toBeUndefined();
    await expect(abortableSleep(60_000, controller.signal)).resolves.toBeUndefined();
  });
});
