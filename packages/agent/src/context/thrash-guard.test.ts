import { describe, expect, it } from "vitest";
import { ThrashGuard, THRASHING_MESSAGE } from "./thrash-guard.js";

describe("ThrashGuard", () => {
  it("stops proactive compression after two consecutive compressions that each saved under 10%", () => {
    const guard = new ThrashGuard({ regrowTokens: 1_000 });
    expect(guard.record(10_000, 9_500).effective).toBe(false);
    expect(guard.thrashing).toBe(false);
    expect(guard.permitsProactive(9_500)).toBe(true);
    expect(guard.record(9_500, 9_000).effective).toBe(false);
    expect(guard.thrashing).toBe(true);
    expect(guard.permitsProactive(9_000)).toBe(false);
    expect(guard.permitsProactive(9_999)).toBe(false);
  });

  it("does not count an effective compression between two weak ones as a streak", () => {
    const guard = new ThrashGuard({ regrowTokens: 1_000 });
    guard.record(10_000, 9_500);
    expect(guard.record(10_000, 5_000).effective).toBe(true);
    guard.record(10_000, 9_500);
    expect(guard.thrashing).toBe(false);
  });

  it("re-arms once the conversation has grown by the margin, and one more weak compression stops it again", () => {
    const guard = new ThrashGuard({ regrowTokens: 1_000 });
    guard.record(10_000, 9_800);
    guard.record(9_800, 9_600);
    expect(guard.permitsProactive(10_599)).toBe(false);
    expect(guard.permitsProactive(10_600)).toBe(true);
    expect(guard.thrashing).toBe(false);
    guard.record(10_600, 10_400);
    expect(guard.thrashing).toBe(true);
  });

  it("lets an overflow compression through once while thrashing", () => {
    const guard = new ThrashGuard({ regrowTokens: 1_000 });
    expect(guard.permitsOverflow()).toBe(true);
    guard.record(10_000, 9_900);
    guard.record(9_900, 9_800);
    expect(guard.permitsOverflow()).toBe(true);
    expect(guard.permitsOverflow()).toBe(false);
    guard.reset();
    expect(guard.thrashing).toBe(false);
    expect(guard.permitsOverflow()).toBe(true);
    expect(guard.permitsProactive(0)).toBe(true);
  });

  it("tells the user how to get out", () => {
    expect(THRASHING_MESSAGE).toContain("/new");
  });
});
