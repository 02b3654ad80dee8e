import { describe, expect, it } from "vitest";
import { OncePerKey } from "./once-per-key.js";
import { RecentKeys } from "./recent-keys.js";

describe("OncePerKey", () => {
  it("lets a key through once, and refuses it after it succeeded", async () => {
    const once = new OncePerKey();
    expect(await once.claim("Ev1")).toBe(true);
    once.settle("Ev1", true);
    expect(await once.claim("Ev1")).toBe(false);
    expect(await once.claim("Ev2")).toBe(true);
  });

  it("lets a key through again after its handling failed", async () => {
    const once = new OncePerKey();
    expect(await once.claim("Ev1")).toBe(true);
    once.settle("Ev1", false);
    expect(await once.claim("Ev1")).toBe(true);
  });

  it("makes a claim during the handling wait for its outcome: refused after a success, its turn after a failure", async () => {
    const once = new OncePerKey();
    expect(await once.claim("Ev1")).toBe(true);
    const duringSuccess = once.claim("Ev1");
    once.settle("Ev1", true);
    expect(await duringSuccess).toBe(false);

    expect(await once.claim("Ev2")).toBe(true);
    const firstRetry = once.claim("Ev2");
    const secondRetry = once.claim("Ev2");
    once.settle("Ev2", false);
    // Only one of the waiting claims gets the turn; the other waits for it in turn.
    expect(await firstRetry).toBe(true);
    once.settle("Ev2", true);
    expect(await secondRetry).toBe(false);
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
