import { describe, expect, it } from "vitest";
import type { Logger } from "@hermes/agent";
import { InlineQueue } from "./inline-queue.js";
import { InMemorySessionLock } from "./session-lock.js";
import { InMemorySessionWaiters } from "./session-waiters.js";
import { ManualScheduler, deferred, settleCallbacks, type Deferred } from "./testing.js";
import { RunAbortedError, type AgentRunJob, type RunOutcome, type RunProcessor, type SettledOutcome } from "./types.js";

interface StartedRun {
  job: AgentRunJob;
  signal: AbortSignal;
  outcome: Deferred<RunOutcome>;
}

/** A processor whose runs the test finishes one by one. */
class ScriptedRuns {
  readonly started: StartedRun[] = [];
  readonly processor: RunProcessor = async (job, { signal }) => {
    const outcome = deferred<RunOutcome>();
    this.started.push({ job, signal, outcome });
    return outcome.promise;
  };

  ids(): number[] {
    return this.started.map((run) => run.job.inboundId);
  }

  run(index: number): StartedRun {
    const run = this.started[index];
    if (!run) throw new Error(`run ${index} has not started; started: ${this.ids().join(",")}`);
    return run;
  }
}

function job(inboundId: number, sessionKey = `agent:main:test:dm:${inboundId}`): AgentRunJob {
  return { inboundId, sessionKey };
}

function recordSettled(queue: InlineQueue): Array<[number, SettledOutcome]> {
  const settled: Array<[number, SettledOutcome]> = [];
  queue.onSettled((settledJob, outcome) => settled.push([settledJob.inboundId, outcome]));
  return settled;
}

function recordingLogger(lines: Array<{ level: string; message: string }>): Logger {
  const logger: Logger = {
    debug: (message) => lines.push({ level: "debug", message }),
    info: (message) => lines.push({ level: "info", message }),
    warn: (message) => lines.push({ level: "warn", message }),
    error: (message) => lines.push({ level: "error", message }),
    child: () => logger,
  };
  return logger;
}

describe("InlineQueue", () => {
  it("hands the job's trace context to the processor", async () => {
    const runs = new ScriptedRuns();
    const queue = new InlineQueue(runs.processor, { concurrency: 1, scheduler: new ManualScheduler() });
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    await queue.enqueue({ ...job(1), traceparent, tracestate: "v=1" });
    expect(runs.run(0).job).toEqual({ ...job(1), traceparent, tracestate: "v=1" });
    runs.run(0).outcome.resolve("done");
    await queue.close({ drainMs: 100 });
  });

  it("tells its listeners of stored replies while the run is still going, and a listener that throws does not stop the others", async () => {
    const runs = new ScriptedRuns();
    const lines: Array<{ level: string; message: string }> = [];
    const queue = new InlineQueue(runs.processor, { concurrency: 1, scheduler: new ManualScheduler(), logger: recordingLogger(lines) });
    const heard: number[] = [];
    queue.onRepliesStored(() => {
      throw new Error("listener bug");
    });
    queue.onRepliesStored((inboundId) => heard.push(inboundId));
    const settled = recordSettled(queue);
    await queue.enqueue(job(7));
    queue.repliesStored(7);
    expect(heard).toEqual([7]);
    expect(settled).toEqual([]);
    expect(lines).toContainEqual({ level: "error", message: "replies-stored listener threw" });
    runs.run(0).outcome.resolve("done");
    await queue.close({ drainMs: 100 });
    expect(settled).toEqual([[7, "done"]]);
  });

  it("runs at most `concurrency` jobs at once and starts the next when one finishes", async () => {
    const runs = new ScriptedRuns();
    const queue = new InlineQueue(runs.processor, { concurrency: 2, scheduler: new ManualScheduler() });
    for (const id of [1, 2, 3, 4]) await queue.enqueue(job(id));

    expect(runs.ids()).toEqual([1, 2]);
    expect(queue.running).toBe(2);

    runs.run(1).outcome.resolve("done");
    await settleCallbacks();
    expect(runs.ids()).toEqual([1, 2, 3]);
    expect(queue.running).toBe(2);

    runs.run(0).outcome.resolve("done");
    runs.run(2).outcome.resolve("done");
    await settleCallbacks();
    expect(runs.ids()).toEqual([1, 2, 3, 4]);
    expect(queue.running).toBe(1);
    runs.run(3).outcome.resolve("done");
    await queue.close();
  });

  it("starts jobs in the order they were enqueued", async () => {
    const runs = new ScriptedRuns();
    const queue = new InlineQueue(runs.processor, { concurrency: 1, scheduler: new ManualScheduler() });
    for (const id of [5, 3, 9, 1]) await queue.enqueue(job(id));
    for (let index = 0; index < 4; index += 1) {
      runs.run(index).outcome.resolve("done");
      await settleCallbacks();
    }
    expect(runs.ids()).toEqual([5, 3, 9, 1]);
    await queue.close();
  });

  it("enqueues an inbound id once while it is queued or running, and again after it settled", async () => {
    const runs = new ScriptedRuns();
    const queue = new InlineQueue(runs.processor, { concurrency: 1, scheduler: new ManualScheduler() });
    const settled = recordSettled(queue);

    expect(await queue.enqueue(job(1))).toEqual({ enqueued: true });
    expect(await queue.enqueue(job(2))).toEqual({ enqueued: true });
    expect(await queue.enqueue(job(1))).toEqual({ enqueued: false });
    expect(await queue.enqueue(job(2))).toEqual({ enqueued: false });

    runs.run(0).outcome.resolve("done");
    await settleCallbacks();
    expect(settled).toEqual([[1, "done"]]);
    expect(await queue.enqueue(job(1))).toEqual({ enqueued: true });

    runs.run(1).outcome.resolve("done");
    await settleCallbacks();
    runs.run(2).outcome.resolve("done");
    await settleCallbacks();
    expect(runs.ids()).toEqual([1, 2, 1]);
    expect(settled).toEqual([
      [1, "done"],
      [2, "done"],
      [1, "done"],
    ]);
    await queue.close();
  });

  it("counts waiting runs: queued ones and those parked behind their session, not running ones", async () => {
    const runs = new ScriptedRuns();
    const scheduler = new ManualScheduler();
    const queue = new InlineQueue(runs.processor, { concurrency: 1, parkedSafetyDelayMs: 30_000, scheduler });
    expect(await queue.waiting()).toBe(0);
    for (const id of [1, 2, 3]) await queue.enqueue(job(id));
    expect(await queue.waiting()).toBe(2);

    runs.run(0).outcome.resolve("retry_later");
    await settleCallbacks();
    expect(scheduler.waiting()).toEqual([30_000]);
    expect(await queue.waiting()).toBe(2);

    runs.run(1).outcome.resolve("done");
    await settleCallbacks();
    runs.run(2).outcome.resolve("done");
    await settleCallbacks();
    expect(await queue.waiting()).toBe(1);
    scheduler.fire(30_000);
    await settleCallbacks();
    expect(await queue.waiting()).toBe(0);
    runs.run(3).outcome.resolve("done");
    await settleCallbacks();
  });

  it("parks a retry_later job until its session is released, then runs it without waiting out the safety delay", async () => {
    const runs = new ScriptedRuns();
    const scheduler = new ManualScheduler();
    const waiters = new InMemorySessionWaiters();
    const lock = new InMemorySessionLock();
    const queue = new InlineQueue(runs.processor, { concurrency: 1, waiters, sessionLocked: (key) => lock.isHeld(key), scheduler });
    const settled = recordSettled(queue);
    const holder = await lock.tryAcquire(job(1).sessionKey, 60_000);
    await queue.enqueue(job(1));
    await queue.enqueue(job(2));

    runs.run(0).outcome.resolve("retry_later");
    await settleCallbacks();
    expect(runs.ids()).toEqual([1, 2]);
    expect(waiters.count(job(1).sessionKey)).toBe(1);
    // Still queued (parked), so a re-delivery is not a second job.
    expect(await queue.enqueue(job(1))).toEqual({ enqueued: false });

    runs.run(1).outcome.resolve("done");
    await settleCallbacks();
    expect(runs.ids()).toEqual([1, 2]);
    await holder?.release();
    await waiters.wake(job(1).sessionKey);
    await settleCallbacks();
    expect(runs.ids()).toEqual([1, 2, 1]);
    expect(waiters.count(job(1).sessionKey)).toBe(0);
    // Woken, so its safety delay was cancelled.
    expect(scheduler.waiting()).toEqual([]);
    runs.run(2).outcome.resolve("done");
    await settleCallbacks();
    expect(settled).toEqual([
      [2, "done"],
      [1, "done"],
    ]);
    await queue.close();
  });

  it("runs a parked job at once when the session was released before it was parked (nobody was there to wake it)", async () => {
    const runs = new ScriptedRuns();
    const lock = new InMemorySessionLock();
    const queue = new InlineQueue(runs.processor, { concurrency: 1, sessionLocked: (key) => lock.isHeld(key), scheduler: new ManualScheduler() });
    await queue.enqueue(job(1));
    runs.run(0).outcome.resolve("retry_later");
    await settleCallbacks();
    expect(runs.ids()).toEqual([1, 1]);
    runs.run(1).outcome.resolve("done");
    await settleCallbacks();
    await queue.close();
  });

  it("runs a parked job after the safety delay when its waker never comes (its holder crashed)", async () => {
    const runs = new ScriptedRuns();
    const scheduler = new ManualScheduler();
    const waiters = new InMemorySessionWaiters();
    const queue = new InlineQueue(runs.processor, { concurrency: 1, waiters, sessionLocked: () => true, parkedSafetyDelayMs: 30_000, scheduler });
    await queue.enqueue(job(1));
    runs.run(0).outcome.resolve("retry_later");
    await settleCallbacks();
    expect(runs.ids()).toEqual([1]);
    expect(scheduler.fire(30_000)).toBe(1);
    await settleCallbacks();
    expect(runs.ids()).toEqual([1, 1]);
    // The timed-out waiter withdrew: a later wake does not start it a second time.
    expect(waiters.count(job(1).sessionKey)).toBe(0);
    runs.run(1).outcome.resolve("done");
    await settleCallbacks();
    await queue.close();
  });

  it("retries a throwing processor three times with growing backoff, then settles the job as failed", async () => {
    const scheduler = new ManualScheduler();
    const lines: Array<{ level: string; message: string }> = [];
    let attempts = 0;
    const queue = new InlineQueue(
      async () => {
        attempts += 1;
        throw new Error("model exploded");
      },
      { concurrency: 1, failureBackoffMs: 1_000, scheduler, logger: recordingLogger(lines) },
    );
    const settled = recordSettled(queue);
    await queue.enqueue(job(7));
    await settleCallbacks();

    const delays: number[] = [];
    for (let retry = 0; retry < 3; retry += 1) {
      delays.push(...scheduler.waiting());
      scheduler.fire();
      await settleCallbacks();
    }

    expect(delays).toEqual([1_000, 2_000, 4_000]);
    expect(attempts).toBe(4);
    expect(scheduler.waiting()).toEqual([]);
    expect(settled).toEqual([[7, "failed"]]);
    expect(lines.filter((line) => line.level === "error" && line.message === "agent run failed")).toHaveLength(4);
    expect(await queue.enqueue(job(7))).toEqual({ enqueued: true });
    await queue.close();
  });

  it("stop(sessionKey) aborts the running jobs of that session only", async () => {
    const runs = new ScriptedRuns();
    const queue = new InlineQueue(runs.processor, { concurrency: 3, scheduler: new ManualScheduler() });
    const settled = recordSettled(queue);
    await queue.enqueue(job(1, "session-a"));
    await queue.enqueue(job(2, "session-b"));
    await queue.enqueue(job(3, "session-a"));

    await queue.stop("session-a");

    const aborted = runs.started.map((run) => run.signal.aborted);
    expect(aborted).toEqual([true, false, true]);
    const reason: unknown = runs.run(0).signal.reason;
    expect(reason).toBeInstanceOf(RunAbortedError);
    expect(reason instanceof RunAbortedError && reason.abortCause).toBe("stop");

    // A run the user stopped is not retried even if its processor throws.
    for (const [index, ending] of [[0, "done"], [1, "done"], [2, "throw"]] as const) {
      if (ending === "done") runs.run(index).outcome.resolve("done");
      else runs.run(index).outcome.reject(new Error("aborted"));
      await settleCallbacks();
    }
    expect(settled).toEqual([
      [1, "done"],
      [2, "done"],
      [3, "failed"],
    ]);
    await queue.close();
  });

  it("close() stops taking jobs, drops queued ones and waits for running ones", async () => {
    const runs = new ScriptedRuns();
    const scheduler = new ManualScheduler();
    const queue = new InlineQueue(runs.processor, { concurrency: 1, scheduler });
    const settled = recordSettled(queue);
    await queue.enqueue(job(1));
    await queue.enqueue(job(2));

    let closed = false;
    const closing = queue.close({ drainMs: 5_000 }).then(() => (closed = true));
    await settleCallbacks();
    expect(closed).toBe(false);
    expect(await queue.enqueue(job(3))).toEqual({ enqueued: false });

    runs.run(0).outcome.resolve("done");
    await closing;
    expect(settled).toEqual([[1, "done"]]);
    expect(runs.ids()).toEqual([1]);
    expect(runs.run(0).signal.aborted).toBe(false);
  });

  it("close() aborts runs that outlive drainMs with a shutdown reason", async () => {
    const runs = new ScriptedRuns();
    const scheduler = new ManualScheduler();
    const queue = new InlineQueue(runs.processor, { concurrency: 2, scheduler });
    const settled = recordSettled(queue);
    await queue.enqueue(job(1));
    runs.started[0]?.signal.addEventListener("abort", () => runs.run(0).outcome.resolve("done"));

    const closing = queue.close({ drainMs: 3_000 });
    await settleCallbacks();
    expect(scheduler.waiting()).toEqual([3_000]);
    expect(runs.run(0).signal.aborted).toBe(false);

    scheduler.fire(3_000);
    await closing;
    const reason: unknown = runs.run(0).signal.reason;
    expect(reason instanceof RunAbortedError && reason.abortCause).toBe("shutdown");
    expect(settled).toEqual([[1, "done"]]);
    expect(queue.running).toBe(0);
  });
});
