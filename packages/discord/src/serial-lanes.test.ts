import { describe, expect, it } from "vitest";
import { SerialLanes } from "./serial-lanes.js";

function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe("SerialLanes", () => {
  it("runs one key's tasks in order and other keys alongside", async () => {
    const lanes = new SerialLanes();
    const order: string[] = [];
    const slow = gate();
    const first = lanes.run("a", async () => {
      await slow.promise;
      order.push("a1");
    });
    const second = lanes.run("a", async () => {
      order.push("a2");
    });
    await lanes.run("b", async () => {
      order.push("b1");
    });
    expect(order).toEqual(["b1"]);
    slow.open();
    await Promise.all([first, second]);
    expect(order).toEqual(["b1", "a1", "a2"]);
  });

  it("keeps going after a task fails and reports idle once all are done", async () => {
    const lanes = new SerialLanes();
    const done: string[] = [];
    const failing = lanes.run("a", async () => {
      throw new Error("boom");
    });
    void lanes.run("a", async () => {
      done.push("after");
    });
    await expect(failing).rejects.toThrow("boom");
    await lanes.idle();
    expect(done).toEqual(["after"]);
  });
});
