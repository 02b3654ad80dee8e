import { describe, expect, it } from "vitest";
import type { ApiFailure } from "./api-errors.js";
import { retryDelayMs } from "./backoff.js";

const middle = (): number => 0.5;
const failure = (kind: "transient" | "conflict"): ApiFailure => ({ kind, message: "failed" });

describe("retryDelayMs", () => {
  it("doubles from one second up to thirty, spread by a quarter either way", () => {
    expect([0, 1, 2, 5, 10].map((attempt) => retryDelayMs(failure("transient"), attempt, middle))).toEqual([1000, 2000, 4000, 30000, 30000]);
    expect(retryDelayMs(failure("transient"), 0, () => 0)).toBe(750);
    expect(retryDelayMs(failure("transient"), 0, () => 0.999999)).toBe(1250);
  });

  it("spaces 409 conflicts out more slowly, still capped", () => {
    expect([0, 1, 2, 3, 4, 50].map((attempt) => retryDelayMs(failure("conflict"), attempt, middle))).toEqual([5000, 10000, 20000, 40000, 60000, 60000]);
  });
});
