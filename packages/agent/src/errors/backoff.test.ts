import { describe, it, expect } from "vitest";
import { jitteredBackoffMs } from "./backoff.js";

const noJitter = { random: () => 0 };

describe("jitteredBackoffMs", () => {
  it("doubles from the 1 s default base on every attempt", () => {
    const delays = [1, 2, 3, 4, 5, 6].map((attempt) => jitteredBackoffMs(attempt, noJitter));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000]);
  });

  it("caps the delay at the 60 s default maximum, even for absurd attempt numbers", () => {
    expect(jitteredBackoffMs(7, noJitter)).toBe(60_000);
    expect(jitteredBackoffMs(20, noJitter)).toBe(60_000);
    expect(jitteredBackoffMs(5000, noJitter)).toBe(60_000);
  });

  it("adds jitter proportional to the delay with the default ratio of one half", () => {
    expect(jitteredBackoffMs(1, { random: () => 0.5 })).toBe(1250);
    expect(jitteredBackoffMs(3, { random: () => 0.5 })).toBe(5000);
    expect(jitteredBackoffMs(10, { random: () => 0.5 })).toBe(75_000);
  });

  it("keeps every jittered delay inside [delay, delay × (1 + ratio))", () => {
    const draws = [0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999_999];
    for (const attempt of [1, 2, 4, 6, 8]) {
      const delay = Math.min(1000 * 2 ** (attempt - 1), 60_000);
      for (const draw of draws) {
        const result = jitteredBackoffMs(attempt, { random: () => draw });
        expect(result).toBeGreaterThanOrEqual(delay);
        expect(result).toBeLessThan(delay * 1.5);
      }
    }
  });

  it("honours custom base, maximum and jitter ratio", () => {
    const options = { baseDelayMs: 200, maxDelayMs: 1000, jitterRatio: 0.2 };
    expect(jitteredBackoffMs(1, { ...options, random: () => 0 })).toBe(200);
    expect(jitteredBackoffMs(3, { ...options, random: () => 0 })).toBe(800);
    expect(jitteredBackoffMs(4, { ...options, random: () => 0 })).toBe(1000);
    expect(jitteredBackoffMs(4, { ...options, random: () => 0.5 })).toBe(1100);
  });

  it("gives the exact exponential delay when jitter is turned off", () => {
    expect(jitteredBackoffMs(2, { jitterRatio: 0, random: () => 0.9 })).toBe(2000);
  });

  it("uses Math.random by default and stays within bounds", () => {
    const result = jitteredBackoffMs(2);
    expect(result).toBeGreaterThanOrEqual(2000);
    expect(result).toBeLessThan(3000);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])("rejects attempt %s as a programming error", (attempt) => {
    expect(() => jitteredBackoffMs(attempt)).toThrow(RangeError);
  });

  it("rejects negative options and a random source outside [0, 1)", () => {
    expect(() => jitteredBackoffMs(1, { baseDelayMs: -1 })).toThrow(RangeError);
    expect(() => jitteredBackoffMs(1, { maxDelayMs: Number.NaN })).toThrow(RangeError);
    expect(() => jitteredBackoffMs(1, { jitterRatio: -0.1 })).toThrow(RangeError);
    expect(() => jitteredBackoffMs(1, { random: () => 1 })).toThrow(RangeError);
    expect(() => jitteredBackoffMs(1, { random: () => -0.1 })).toThrow(RangeError);
  });
});
