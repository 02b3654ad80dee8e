import { describe, expect, it } from "vitest";
import { forEachConcurrently, groupByChat } from "./chat-lanes.js";
import type { DeliveryRecordLike } from "./delivery-types.js";
import { gate } from "./testing.js";

function delivery(id: number, platform: string, chatId: string): DeliveryRecordLike {
  return { id, platform, chatId, text: `#${id}`, kind: "reply", attempts: 0 };
}

describe("groupByChat", () => {
  it("keeps each chat's deliveries in order and tells platforms apart", () => {
    const lanes = groupByChat([delivery(1, "telegram", "1"), delivery(2, "discord", "1"), delivery(3, "telegram", "1"), delivery(4, "telegram", "2")]);
    expect(lanes.map((lane) => lane.map((item) => item.id))).toEqual([[1, 3], [2], [4]]);
  });
});

describe("forEachConcurrently", () => {
  it("runs at most the given number of items at once and all of them in the end", async () => {
    const held = gate();
    let running = 0;
    let peak = 0;
    const done: number[] = [];
    const finished = forEachConcurrently([1, 2, 3, 4, 5], 2, async (item) => {
      running += 1;
      peak = Math.max(peak, running);
      await held.promise;
      running -= 1;
      done.push(item);
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(running).toBe(2);
    held.open();
    await finished;
    expect(peak).toBe(2);
    expect(done.sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it("copes with no items", async () => {
    const seen: number[] = [];
    await forEachConcurrently([], 3, async (item: number) => void seen.push(item));
    expect(seen).toEqual([]);
  });
});
