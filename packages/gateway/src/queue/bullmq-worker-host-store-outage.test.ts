import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startRedis, type TestRedis } from "../../../../test/support/redis-server.js";
import { BullMqQueue } from "./bullmq-queue.js";
import { BullMqWorkerHost, type BullMqWorkerHostOptions } from "./bullmq-worker-host.js";
import { STORE_RECHECK_MS } from "./store-outage.js";
import { deferred } from "./testing.js";
import type { AgentRunJob, RunProcessor, SettledOutcome } from "./types.js";

let server: TestRedis;
const closers: Array<() => Promise<void>> = [];
let queueCount = 0;

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server.stop();
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function queueWithWorker(processor: RunProcessor, options: Partial<BullMqWorkerHostOptions>): Promise<{ queue: BullMqQueue; host: BullMqWorkerHost }> {
  queueCount += 1;
  const queueName = `store-outage-runs-${queueCount}`;
  const queue = new BullMqQueue({ redisUrl: server.url, queueName, attempts: 1 });
  closers.push(() => queue.close());
  // The clock runs one recheck behind, so a run waiting for the database is due again at once.
  const host = new BullMqWorkerHost({ redisUrl: server.url, queueName, processor, concurrency: 1, now: () => Date.now() - STORE_RECHECK_MS, ...options });
  closers.push(() => host.close({ drainMs: 1_000 }));
  await host.ready();
  await queue.ready();
  return { queue, host };
}

function nextSettled(queue: BullMqQueue): Promise<[AgentRunJob, SettledOutcome]> {
  const settled = deferred<[AgentRunJob, SettledOutcome]>();
  queue.onSettled((job, outcome) => settled.resolve([job, outcome]));
  return settled.promise;
}

describe("BullMqWorkerHost while the state database is away", () => {
  it("runs a job that failed then again without using its only attempt, until the database is back", async () => {
    let away = true;
    let calls = 0;
    const { queue, host } = await queueWithWorker(
      async () => {
        calls += 1;
        if (calls === 3) away = false;
        if (calls <= 3) throw new Error("database is not currently accepting connections");
        return "done";
      },
      { storeAway: async () => away },
    );
    const settled = nextSettled(queue);
    await queue.enqueue({ inboundId: 5, sessionKey: "s5" });

    expect(await settled).toEqual([{ inboundId: 5, sessionKey: "s5" }, "failed"]);
    // Two failures waited for the database; the third, once it answered again, used the job's one attempt.
    expect(calls).toBe(3);
    expect(host.workerHealth()).toMatchObject({ failed: 1 });
  });

  it("does not run a job again that was stopped while the database was being asked", async () => {
    const asked = deferred<void>();
    const answer = deferred<boolean>();
    let calls = 0;
    let runSignal: AbortSignal | undefined;
    const { queue } = await queueWithWorker(
      async (_job, { signal }) => {
        calls += 1;
        runSignal = signal;
        throw new Error("database is not currently accepting connections");
      },
      {
        storeAway: () => {
          asked.resolve();
          return answer.promise;
        },
      },
    );
    const settled = nextSettled(queue);
    await queue.enqueue({ inboundId: 6, sessionKey: "s6" });
    await asked.promise;
    await queue.stop("s6");
    // The stop travels over Redis pub/sub: it has arrived once the run's signal is aborted.
    await vi.waitFor(() => expect(runSignal?.aborted).toBe(true));
    answer.resolve(true);

    expect(await settled).toEqual([{ inboundId: 6, sessionKey: "s6" }, "failed"]);
    expect(calls).toBe(1);
  });
});
