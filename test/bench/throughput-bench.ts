import { Queue, QueueEvents, Worker } from "bullmq";
import { percentile, QUICK } from "./bench-words.js";
import { startBenchDeployment, type BenchDeployment } from "./bench-deployment.js";
import type { BenchFigure } from "./gateway-bench.js";
import { Redis } from "ioredis";
import { startRedis, type TestRedis } from "../support/redis-server.js";

const SEQUENTIAL = QUICK ? 20 : 60;
const BURST = QUICK ? 60 : 200;
const BURST_USERS = 40;
/** Telegram's bot-wide bucket (30 sends, refilled at 30 a second) is full again after a second without sends. */
const GLOBAL_REFILL_MS = 1_100;
const SEQUENTIAL_GAP_MS = 100;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface ModeFigures {
  mode: string;
  /** Median time from the user's message being available to its answer arriving, one message at a time. */
  latencyMs: number;
  throughput: number;
  cpuMsPerMessage: number;
  /** Replies that answer no message (busy acknowledgements during the burst). */
  notices: number;
}

let nextMark = 1_000_000;

/** One message at a time (latency), then a burst from 40 users (throughput); CPU of every process over both. */
async function measure(deployment: BenchDeployment, mode: string): Promise<ModeFigures> {
  // Warm-up: the first messages pay for lazy loading and JIT, which a running gateway has long paid, and each
  // user of the one-at-a-time phase has a session already, as the regulars of a running gateway do.
  for (let i = 0; i < 10; i += 1) await deployment.say(900 + (i % 3), nextMark++).answered;
  for (let i = 0; i < SEQUENTIAL; i += 1) await deployment.say(100 + i, nextMark++).answered;
  await pause(GLOBAL_REFILL_MS);
  const cpuBefore = deployment.cpuMs();
  const latencies: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i += 1) {
    // No answer may wait for Telegram's pacing, or the figure measures the platform's limits rather than our work:
    // each message comes from its own chat (its user's second message, a whole round after the first; with 10 chats
    // in turn most answers waited for a chat's next send token), and a pause between messages keeps the bot under
    // its 30 sends a second overall (a typing action and a reply per message; back to back, every answer waited
    // for the next of those tokens, 33 ms). The pauses add the gateway's idle CPU, well under 0.1 ms a message.
    await pause(SEQUENTIAL_GAP_MS);
    const message = deployment.say(100 + i, nextMark++);
    latencies.push((await message.answered) - message.sentAt);
  }
  const started = performance.now();
  const burst = Array.from({ length: BURST }, (_, i) => deployment.say(200 + (i % BURST_USERS), nextMark++).answered);
  await Promise.all(burst);
  const seconds = (performance.now() - started) / 1000;
  // Workers and the gateway finish bookkeeping (delivery rows, acknowledgements) just after the last send.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const cpu = deployment.cpuMs() - cpuBefore;
  // Busy acknowledgements ("still answering your previous message") are part of the work measured, not answers.
  const notices = deployment.otherReplies().length;
  return { mode, latencyMs: percentile(latencies, 0.5), throughput: BURST / seconds, cpuMsPerMessage: cpu / (SEQUENTIAL + BURST), notices };
}

async function deploymentMode(workers: number, mode: string, redis?: TestRedis): Promise<ModeFigures> {
  const deployment = await startBenchDeployment({ workers, ...(redis ? { redis } : {}) });
  try {
    return await measure(deployment, mode);
  } finally {
    await deployment.stop();
    // The next mode starts on an empty Redis, as a fresh deployment would.
    if (redis) await flushAll(redis);
  }
}

async function flushAll(redis: TestRedis): Promise<void> {
  const client = new Redis(redis.url);
  try {
    await client.flushall();
  } finally {
    await client.quit();
  }
}

/** A BullMQ queue whose worker does nothing, on the same redis-server: the floor any BullMQ mode stands on. */
async function bareBullMq(redis: TestRedis): Promise<ModeFigures> {
  const connection = { url: redis.url, maxRetriesPerRequest: null };
  const queue = new Queue("bench-noop", { connection });
  const events = new QueueEvents("bench-noop", { connection });
  const worker = new Worker("bench-noop", async () => "done", { connection, concurrency: 4 });
  try {
    await Promise.all([queue.waitUntilReady(), events.waitUntilReady(), worker.waitUntilReady()]);
    const finished = new Map<string, () => void>();
    worker.on("completed", (job) => {
      finished.get(job.id ?? "")?.();
    });
    const run = async (): Promise<void> => {
      const job = await queue.add("noop", { text: "x".repeat(200) }, { removeOnComplete: true });
      await new Promise<void>((resolve) => finished.set(job.id ?? "", resolve));
    };
    for (let i = 0; i < 10; i += 1) await run();
    const cpuBefore = process.cpuUsage();
    const latencies: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i += 1) {
      const started = performance.now();
      await run();
      latencies.push(performance.now() - started);
    }
    const started = performance.now();
    await Promise.all(Array.from({ length: BURST }, run));
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    return { mode: "bare BullMQ no-op", latencyMs: percentile(latencies, 0.5), throughput: BURST / seconds, cpuMsPerMessage: (cpu.user + cpu.system) / 1000 / (SEQUENTIAL + BURST), notices: 0 };
  } finally {
    await worker.close();
    await events.close();
    await queue.close();
  }
}

/**
 * Zero-delay model: inline (embedded), BullMQ with one and two worker processes, and a bare BullMQ no-op queue for
 * reference, all BullMQ ones on the same redis-server (emptied between modes). CPU is the gateway's plus the workers'
 * (the stand-ins run in this process and are not counted; for the bare queue it is this process's, producer and
 * worker together).
 */
export async function throughputBenchmark(): Promise<BenchFigure[]> {
  const redis = await startRedis();
  let modes: ModeFigures[];
  try {
    modes = [await deploymentMode(0, "inline"), await deploymentMode(1, "BullMQ, 1 worker", redis), await deploymentMode(2, "BullMQ, 2 workers", redis), await bareBullMq(redis)];
  } finally {
    await redis.stop();
  }
  const figures: BenchFigure[] = [];
  const inline = modes[0];
  for (const result of modes) {
    const isApp = result.mode !== "bare BullMQ no-op";
    const latencyName = result.mode === "inline" ? "inline: own work per reply (answer latency p50)" : `${result.mode}: answer latency p50`;
    figures.push({ name: latencyName, value: result.latencyMs, unit: "ms", ...(result.mode === "inline" ? { target: { max: 10 } } : {}) });
    figures.push({ name: `${result.mode}: burst throughput`, value: result.throughput, unit: "msg/s" });
    figures.push({ name: `${result.mode}: CPU per message`, value: result.cpuMsPerMessage, unit: "ms", ...(isApp ? { target: { max: 5 } } : {}) });
    if (isApp) figures.push({ name: `${result.mode}: busy notices during the burst`, value: result.notices, unit: "" });
    if (isApp && inline && result !== inline) {
      figures.push({ name: `${result.mode}: latency added over inline`, value: result.latencyMs - inline.latencyMs, unit: "ms", target: { max: 2 } });
    }
  }
  return figures;
}
