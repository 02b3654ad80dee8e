import { describe, expect, it } from "vitest";
import { InlineQueue } from "./inline-queue.js";
import { STORE_RECHECK_MS } from "./store-outage.js";
import { ManualScheduler, settleCallbacks } from "./testing.js";
import type { SettledOutcome } from "./types.js";

const JOB = { inboundId: 7, sessionKey: "agent:main:test:dm:7" };

describe("InlineQueue while the state database is away", () => {
  it("lets a run that failed then wait for the database without using a retry, however long it is away", async () => {
    const scheduler = new ManualScheduler();
    let away = true;
    let attempts = 0;
    const queue = new InlineQueue(
      async () => {
        attempts += 1;
        if (away) throw new Error("database is not currently accepting connections");
        return "done";
      },
      { concurrency: 1, maxRetries: 3, scheduler, storeAway: async () => away },
    );
    const settled: Array<[number, SettledOutcome]> = [];
    queue.onSettled((job, outcome) => settled.push([job.inboundId, outcome]));
    await queue.enqueue(JOB);
    await settleCallbacks();

    // Ten failures while it is away: more than the three retries a run gets, and none of them counted.
    const delays: number[] = [];
    for (let wait = 0; wait < 10; wait += 1) {
      delays.push(...scheduler.waiting());
      scheduler.fire();
      await settleCallbacks();
    }
    expect(delays).toEqual(Array.from({ length: 10 }, () => STORE_RECHECK_MS));
    expect(settled).toEqual([]);

    away = false;
    scheduler.fire();
    await settleCallbacks();
    expect(settled).toEqual([[7, "done"]]);
    expect(attempts).toBe(12);
    await queue.close();
  });

  it("settles a run stopped while the database was being asked instead of running it again", async () => {
    const { queue, scheduler, asked, answer } = queueAskingTheStore();
    const settled: Array<[number, SettledOutcome]> = [];
    queue.onSettled((job, outcome) => settled.push([job.inboundId, outcome]));
    await queue.enqueue(JOB);
    await asked;
    await queue.stop(JOB.sessionKey);
    answer(true);
    await settleCallbacks();
    expect(settled).toEqual([[7, "failed"]]);
    expect(scheduler.waiting()).toEqual([]);
    await queue.close();
  });

  it("leaves no retry behind when shutdown began while the database was being asked", async () => {
    const { queue, scheduler, asked, answer } = queueAskingTheStore();
    await queue.enqueue(JOB);
    await asked;
    const closed = queue.close();
    answer(true);
    await closed;
    expect(await queue.waiting()).toBe(0);
    expect(scheduler.waiting()).toEqual([]);
  });

  it("counts a failure as usual while the database answers", async () => {
    const scheduler = new ManualScheduler();
    let attempts = 0;
    const queue = new InlineQueue(
      async () => {
        attempts += 1;
        throw new Error("model exploded");
      },
      { concurrency: 1, maxRetries: 1, failureBackoffMs: 1_000, scheduler, storeAway: async () => false },
    );
    const settled: Array<[number, SettledOutcome]> = [];
    queue.onSettled((job, outcome) => settled.push([job.inboundId, outcome]));
    await queue.enqueue(JOB);
    await settleCallbacks();
    expect(scheduler.waiting()).toEqual([1_000]);
    scheduler.fire();
    await settleCallbacks();
    expect(settled).toEqual([[7, "failed"]]);
    expect(attempts).toBe(2);
    await queue.close();
  });
});

/** A queue whose only run fails, and whose question to the database is answered by the test. */
function queueAskingTheStore(): { queue: InlineQueue; scheduler: ManualScheduler; asked: Promise<void>; answer: (away: boolean) => void } {
  const scheduler = new ManualScheduler();
  let answer: (away: boolean) => void = () => undefined;
  let markAsked: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => (markAsked = resolve));
  const queue = new InlineQueue(
    async () => {
      throw new Error("database is not currently accepting connections");
    },
    {
      concurrency: 1,
      scheduler,
      storeAway: () => {
        markAsked();
        return new Promise<boolean>((resolve) => (answer = resolve));
      },
    },
  );
  return { queue, scheduler, asked, answer: (away) => answer(away) };
}
