import { describe, expect, it } from "vitest";
import { RecentIds } from "./recent-ids.js";

describe("RecentIds", () => {
  it("remembers ids up to its capacity, forgetting the oldest first", () => {
    const ids = new RecentIds(2);
    ids.add("1");
    ids.add("2");
    ids.add("1");
    ids.add("3");
    expect(ids.has("1")).toBe(true);
    expect(ids.has("2")).toBe(false);
    expect(ids.has("3")).toBe(true);
  });
});
