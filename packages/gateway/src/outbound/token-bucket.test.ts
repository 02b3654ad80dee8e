import { describe, expect, it } from "vitest";
import { TokenBucket } from "./token-bucket.js";

function clocked() {
  let now = 0;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("TokenBucket", () => {
  it("starts full, gives out `burst` tokens at once, then tells how long until the next", () => {
    const clock = clocked();
    const bucket = new TokenBucket({ ratePerSecond: 1, burst: 3 }, clock.now);
    expect([bucket.tryTake(), bucket.tryTake(), bucket.tryTake(), bucket.tryTake()]).toEqual([true, true, true, false]);
    expect(bucket.msUntil()).toBe(1000);
    expect(bucket.msUntil(2)).toBe(2000);
    clock.advance(400);
    expect(bucket.msUntil()).toBe(600);
    expect(bucket.tryTake()).toBe(false);
    clock.advance(600);
    expect(bucket.tryTake()).toBe(true);
  });

  it("refills at its rate and never above its burst", () => {
    const clock = clocked();
    const bucket = new TokenBucket({ ratePerSecond: 20 / 60, burst: 2 }, clock.now);
    bucket.tryTake();
    bucket.tryTake();
    expect(bucket.msUntil()).toBe(3000);
    clock.advance(3000);
    expect(bucket.msUntil()).toBe(0);
    expect(bucket.isFull()).toBe(false);
    clock.advance(600_000);
    expect(bucket.isFull()).toBe(true);
    expect([bucket.tryTake(), bucket.tryTake(), bucket.tryTake()]).toEqual([true, true, false]);
  });

  it("waits a whole millisecond at least when a refill lands a hair short of a token", () => {
    const clock = clocked();
    const bucket = new TokenBucket({ ratePerSecond: 30, burst: 1 }, clock.now);
    bucket.tryTake();
    const wait = bucket.msUntil();
    expect(wait).toBe(34);
    clock.advance(wait);
    expect(bucket.tryTake()).toBe(true);
  });

  it("refuses limits that can never hand out a token, and requests larger than the bucket", () => {
    const clock = clocked();
    expect(() => new TokenBucket({ ratePerSecond: 0, burst: 3 }, clock.now)).toThrow(/ratePerSecond/);
    expect(() => new TokenBucket({ ratePerSecond: Number.NaN, burst: 3 }, clock.now)).toThrow(/ratePerSecond/);
    expect(() => new TokenBucket({ ratePerSecond: 1, burst: 0.5 }, clock.now)).toThrow(/burst/);
    expect(() => new TokenBucket({ ratePerSecond: 1, burst: 3 }, clock.now).msUntil(4)).toThrow(/cannot take 4/);
  });

  it("keeps its reserve back: a take needs the reserve on top, so bursts shrink and the steady rate stays", () => {
    const clock = clocked();
    const bucket = new TokenBucket({ ratePerSecond: 1, burst: 3 }, clock.now, 0.25);
    expect([bucket.tryTake(), bucket.tryTake(), bucket.tryTake()]).toEqual([true, true, false]);
    expect(bucket.msUntil()).toBe(250);
    clock.advance(250);
    expect(bucket.tryTake()).toBe(true);
    expect(bucket.msUntil()).toBe(1000);
    // A reserve as large as the bucket still lets one token through at a time.
    const tight = new TokenBucket({ ratePerSecond: 1, burst: 2 }, clock.now, 5);
    expect([tight.tryTake(), tight.tryTake()]).toEqual([true, false]);
    expect(() => new TokenBucket({ ratePerSecond: 1, burst: 2 }, clock.now, -1)).toThrow(/reserve/);
  });
});
