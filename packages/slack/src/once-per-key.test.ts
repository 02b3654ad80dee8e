import { describe, expect, it } from "vitest";
import { OncePerKey } from "./once-per-key.js";
import { RecentKeys } from "./recent-keys.js";

describe("OncePerKey", () => {
  it("lets a key through once while it is handled and after it succeeded", () => {
    const once = new OncePerKey();
    expect(once.claim("Ev1")).toBe(true);
    expect(once.claim("Ev1")).toBe(false);
    once.settle("Ev1", true);
    expect(once.claim("Ev1")).toBe(false);
    expect(once.claim("Ev2")).toBe(true);
  });

  it("lets a key through again after its handling failed", () => {
    const once = new OncePerKey();
    expect(once.claim("Ev1")).toBe(true);
    once.settle("Ev1", false);
    expect(once.claim("Ev1")).toBe(true);
  });
});

describe("RecentKeys", () => {
  it("forgets the oldest key beyond its capacity and refreshes keys added again", () => {
    const keys = new RecentKeys(2);
    keys.add("a");
    keys.add("b");
    keys.add("a");
    keys.add("c");
    expect([keys.has("a"), keys.has("b"), keys.has("c")]).toEqual([true, false, true]);
    expect(keys.size).toBe(2);
  });
});
