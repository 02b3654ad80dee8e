import { describe, expect, it } from "vitest";
import { receiveWithRetry } from "./receive-with-retry.js";

function failingTimes(count: number): { receive: () => Promise<void>; calls: () => number } {
  let calls = 0;
  return {
    receive: async () => {
      calls += 1;
      if (calls <= count) throw new Error(`database is locked (${calls})`);
    },
    calls: () => calls,
  };
}

describe("receiveWithRetry", () => {
  it("retries with a doubling pause until the gateway saves the message", async () => {
    const pauses: number[] = [];
    const store = failingTimes(3);
    const outcome = await receiveWithRetry(store.receive, { sleep: async (ms) => void pauses.push(ms), signal: new AbortController().signal });
    expect(outcome).toEqual({ ok: true, attempts: 4 });
    expect(pauses).toEqual([500, 1000, 2000]);
  });

  it("gives up after about a minute of pauses capped at 8 s, with the last error", async () => {
    const pauses: number[] = [];
    const store = failingTimes(Number.POSITIVE_INFINITY);
    const retried: number[] = [];
    const outcome = await receiveWithRetry(store.receive, {
      sleep: async (ms) => void pauses.push(ms),
      signal: new AbortController().signal,
      onRetry: (_error, attempt) => void retried.push(attempt),
    });
    expect(pauses).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000, 8000, 8000, 8000, 8000]);
    expect(outcome).toMatchObject({ ok: false, reason: "gave up", attempts: 12 });
    expect(!outcome.ok && outcome.error).toEqual(new Error("database is locked (12)"));
    expect(retried).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it("stops retrying as soon as the adapter stops", async () => {
    const stopping = new AbortController();
    const store = failingTimes(Number.POSITIVE_INFINITY);
    const outcome = await receiveWithRetry(store.receive, {
      sleep: async () => {
        if (store.calls() === 2) stopping.abort();
      },
      signal: stopping.signal,
    });
    expect(outcome).toMatchObject({ ok: false, reason: "stopping", attempts: 2 });
    expect(store.calls()).toBe(2);
  });
});
