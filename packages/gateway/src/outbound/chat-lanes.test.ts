import { describe, expect, it } from "vitest";
import { ChatLanes, chatLaneKey } from "./chat-lanes.js";
import { gate } from "./testing.js";

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("chatLaneKey", () => {
  it("tells platforms apart", () => {
    expect(chatLaneKey({ platform: "telegram", chatId: "1" })).not.toBe(chatLaneKey({ platform: "discord", chatId: "1" }));
    expect(chatLaneKey({ platform: "telegram", chatId: "1" })).toBe(chatLaneKey({ platform: "telegram", chatId: "1" }));
  });
});

describe("ChatLanes", () => {
  it("runs one chat's work in order and other chats' work beside it", async () => {
    const held = gate();
    const lanes = new ChatLanes(4);
    const done: string[] = [];
    lanes.run("a", async () => {
      await held.promise;
      done.push("a1");
    });
    lanes.run("a", async () => void done.push("a2"));
    lanes.run("b", async () => void done.push("b1"));
    expect(lanes.busy).toBe(2);
    expect(lanes.free).toBe(2);
    await tick();
    expect(done).toEqual(["b1"]);
    held.open();
    await lanes.idle();
    expect(done).toEqual(["b1", "a1", "a2"]);
    expect(lanes.busy).toBe(0);
  });

  it("wakes a waiter when work finishes or on demand, and at once when idle", async () => {
    const lanes = new ChatLanes(1);
    await lanes.settled();
    const held = gate();
    lanes.run("a", () => held.promise);
    expect(lanes.free).toBe(0);
    let woken = 0;
    void lanes.settled().then(() => (woken += 1));
    await tick();
    expect(woken).toBe(0);
    lanes.wake();
    await tick();
    expect(woken).toBe(1);
    const finished = lanes.settled();
    held.open();
    await finished;
    expect(lanes.free).toBe(1);
  });

  it("keeps a wake that came while nobody waited for the next waiter", async () => {
    const lanes = new ChatLanes(2);
    const held = gate();
    const quick = gate();
    lanes.run("slow", () => held.promise);
    lanes.run("quick", () => quick.promise);
    quick.open();
    await tick();
    // "quick" finished before anyone waited: the next wait returns at once instead of waiting for "slow".
    await lanes.settled();
    let woken = false;
    void lanes.settled().then(() => (woken = true));
    await tick();
    expect(woken).toBe(false);
    held.open();
    await lanes.idle();
  });
});
