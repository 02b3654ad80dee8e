import { describe, expect, it } from "vitest";
import { DEFAULT_RECONNECT_BACKOFF, reconnectDelayMs } from "./reconnect-backoff.js";

describe("reconnectDelayMs", () => {
  const lowest = (): number => 0;
  const highest = (): number => 1;

  it("doubles from one second up to a minute, with up to half of each pause left to chance", () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 7, 8].map((failures) => reconnectDelayMs(failures, false, DEFAULT_RECONNECT_BACKOFF, highest));
    expect(ceilings).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    expect(reconnectDelayMs(3, false, DEFAULT_RECONNECT_BACKOFF, lowest)).toBe(2_000);
    expect(reconnectDelayMs(50, false, DEFAULT_RECONNECT_BACKOFF, lowest)).toBe(30_000);
  });

  it("waits the longest pause at once after a failure that looks permanent", () => {
    expect(reconnectDelayMs(1, true, DEFAULT_RECONNECT_BACKOFF, highest)).toBe(60_000);
    expect(reconnectDelayMs(1, true, { firstDelayMs: 10, maxDelayMs: 40 }, lowest)).toBe(20);
  });
});
