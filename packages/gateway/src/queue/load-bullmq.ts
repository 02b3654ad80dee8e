import type { BullMqQueue } from "./bullmq-queue.js";
import type { BullMqWorkerHost } from "./bullmq-worker-host.js";

export interface BullMqClasses {
  BullMqQueue: typeof BullMqQueue;
  BullMqWorkerHost: typeof BullMqWorkerHost;
}

/**
 * The BullMQ producer and worker host, loaded on demand: bullmq (with lodash, msgpackr, cron-parser) and ioredis
 * cost an embedded gateway, which never uses them, several MiB of memory at start-up, so they are imported only by
 * the processes that run with REDIS_URL.
 */
export async function loadBullMq(): Promise<BullMqClasses> {
  const [queue, workerHost] = await Promise.all([import("./bullmq-queue.js"), import("./bullmq-worker-host.js")]);
  return { BullMqQueue: queue.BullMqQueue, BullMqWorkerHost: workerHost.BullMqWorkerHost };
}
