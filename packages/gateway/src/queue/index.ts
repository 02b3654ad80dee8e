export {
  DEFAULT_RUN_QUEUE_NAME,
  RunAbortedError,
  parseAgentRunJob,
  runJobId,
  type AgentRunJob,
  type AgentRunQueue,
  type QueueCloseOptions,
  type RunAbortCause,
  type RunContext,
  type RunOutcome,
  type RunProcessor,
  type SessionLease,
  type SessionLock,
  type SettledListener,
  type SettledOutcome,
  type WorkerHealth,
} from "./types.js";
export { InlineQueue, type InlineQueueOptions } from "./inline-queue.js";
export type { BullMqQueue, BullMqQueueOptions } from "./bullmq-queue.js";
export type { BullMqWorkerHost, BullMqWorkerHostOptions } from "./bullmq-worker-host.js";
export { loadBullMq, type BullMqClasses } from "./load-bullmq.js";
export {
  InMemorySessionLock,
  RedisSessionLock,
  SESSION_LOCK_PREFIX,
  type InMemorySessionLockOptions,
  type SessionLockOptions,
} from "./session-lock.js";
export { STOP_CHANNEL, StopListener, parseStopMessage, publishStop } from "./stop-channel.js";
export { STORE_RECHECK_MS } from "./store-outage.js";
export { timerScheduler, type Scheduler } from "./scheduler.js";
