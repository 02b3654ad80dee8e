/**
 * A BullMQ worker host in its own process, for crash tests: every run it takes is recorded in the Redis list
 * `<queue>:started` and then hangs until the process is killed (or stopped with SIGTERM, which closes it cleanly).
 * Environment: REDIS_URL, QUEUE_NAME, optionally LOCK_MS and STALLED_INTERVAL_MS (its job lock and stall checks;
 * default the production ones). Prints "ready" once it takes jobs.
 */
import { Redis } from "ioredis";
import { BullMqWorkerHost } from "../../packages/gateway/src/queue/bullmq-worker-host.js";

const redisUrl = process.env.REDIS_URL;
const queueName = process.env.QUEUE_NAME;
if (!redisUrl || !queueName) {
  process.stderr.write("REDIS_URL and QUEUE_NAME are required\n");
  process.exit(2);
}

const numberFrom = (value: string | undefined): number | undefined => (value === undefined ? undefined : Number(value));
const lockMs = numberFrom(process.env.LOCK_MS);
// Every worker's stall check also holds off the others' for its interval, so a survivor's short one needs ours short too.
const stalledIntervalMs = numberFrom(process.env.STALLED_INTERVAL_MS);
const recorder = new Redis(redisUrl);
const host = new BullMqWorkerHost({
  redisUrl,
  queueName,
  concurrency: 1,
  ...(lockMs === undefined ? {} : { lockDurationMs: lockMs }),
  ...(stalledIntervalMs === undefined ? {} : { stalledIntervalMs }),
  processor: async (job, { signal }) => {
    await recorder.rpush(`${queueName}:started`, String(job.inboundId));
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    return "done";
  },
});

process.once("SIGTERM", () => {
  void host
    .close({ drainMs: 0 })
    .then(() => recorder.quit())
    .finally(() => process.exit(0));
});

await host.ready();
process.stdout.write("ready\n");
