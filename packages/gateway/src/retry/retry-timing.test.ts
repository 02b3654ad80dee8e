import { describe, expect, it } from "vitest";
import { abortableSleep, cappedBackoffMs, type BackoffSchedule } from "./retry-timing.js";

const middle = (): number => 0.5;
const lowest = (): number => 0;
const highest = (): number => 0.999_999;

function schedule(jitter: BackoffSchedule["jitter"]): BackoffSchedule {
  return { firstMs: 1_000, maxMs: 60_000, jitter };
}

describe("cappedBackoffMs", () => {
  it("doubles from firstMs with each failure in a row and stops at maxMs", () => {
    const steps = [1, 2, 3, 4, 5, 6, 7, 8, 50].map((failures) => cappedBackoffMs(failures, schedule("spread"), middle));
    expect(steps).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it("counts no failures yet as the first", () => {
    expect(cappedBackoffMs(0, schedule("spread"), middle)).toBe(1_000);
    expect(cappedBackoffMs(-3, schedule("half-random"), highest)).toBe(1_000);
  });

  it("spreads by a quarter either way, above the cap too", () => {
    expect(cappedBackoffMs(1, schedule("spread"), lowest)).toBe(750);
    expect(cappedBackoffMs(1, schedule("spread"), highest)).toBe(1_250);
    expect(cappedBackoffMs(30, schedule("spread"), highest)).toBe(75_000);
  });

  it("spreads by a quarter either way but never past the cap with spread-within-cap", () => {
    expect(cappedBackoffMs(1, schedule("spread-within-cap"), lowest)).toBe(750);
    expect(cappedBackoffMs(1, schedule("spread-within-cap"), highest)).toBe(1_250);
    expect(cappedBackoffMs(30, schedule("spread-within-cap"), lowest)).toBe(45_000);
    expect(cappedBackoffMs(30, schedule("spread-within-cap"), highest)).toBe(60_000);
  });

  it("keeps half the step fixed and randomises the other half with half-random", () => {
    expect(cappedBackoffMs(3, schedule("half-random"), lowest)).toBe(2_000);
    expect(cappedBackoffMs(3, schedule("half-random"), highest)).toBe(4_000);
    expect(cappedBackoffMs(50, schedule("half-random"), lowest)).toBe(30_000);
    expect(cappedBackoffMs(50, schedule("half-random"), highest)).toBe(60_000);
  });
});

describe("abortableSleep", () => {
  it("resolves early when the signal aborts, and at once when it already has", async () => {
    const stopping = new AbortController();
    const sleeping = abortableSleep(3_600_000, stopping.signal);
    stopping.abort();
    await expect(sleeping).resolves.toBeUndefined();
    await expect(abortableSleep(3_600_000, stopping.signal)).resolves.toBeUndefined();
  });

  it("resolves after the pause when nothing aborts", async () => {
    const running = new AbortController();
    await expect(abortableSleep(1, running.signal)).resolves.toBeUndefined();
  });
});
