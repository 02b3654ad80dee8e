import { existsSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ApiError } from "../fakes/telegram/index.js";
import { percentile, QUICK } from "./bench-words.js";
import { startBenchDeployment, type BenchDeployment } from "./bench-deployment.js";
import type { BenchFigure } from "./gateway-bench.js";

const BURST = QUICK ? 80 : 200;
const USERS = QUICK ? 20 : 50;
const LOOP_PROBE = fileURLToPath(new URL("./loop-delay-probe.mjs", import.meta.url));
/** Shown by replies that tell the user something went wrong (the gateway's error wording). */
const ERROR_REPLY = /error|sorry|went wrong|failed|try again|could not|couldn't/i;

interface BurstOutcome {
  seconds: number;
  /** Messages still unanswered when the wait ended (their latency counts as the whole wait, a lower bound). */
  unanswered: number;
  latencies: Map<number, number[]>;
  peakRssMiB: number;
  tooManyRequests: number;
  errorReplies: number;
  otherReplies: number;
}

let nextMark = 2_000_000;

/** A flood-controlled chat must not hold the others back; should it still, the benchmark ends after this long. */
const MAX_WAIT_MS = QUICK ? 20_000 : 45_000;

/** `BURST` DMs from `USERS` users at once (user u writes messages u, u+USERS, …); per-user latencies by user id. */
async function burst(deployment: BenchDeployment, firstUser: number): Promise<BurstOutcome> {
  let unanswered = 0;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, deployment.rssBytes().reduce((a, b) => a + b, 0))), 50);
  const latencies = new Map<number, number[]>();
  const started = performance.now();
  const before429 = deployment.telegram.calls.filter((call) => call.outcome === 429).length;
  try {
    await Promise.all(
      Array.from({ length: BURST }, async (_, i) => {
        const user = firstUser + (i % USERS);
        const message = deployment.say(user, nextMark++);
        let timer: NodeJS.Timeout | undefined;
        const at = await Promise.race([message.answered, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), MAX_WAIT_MS)))]);
        clearTimeout(timer);
        if (at === undefined) unanswered += 1;
        latencies.set(user, [...(latencies.get(user) ?? []), (at ?? performance.now()) - message.sentAt]);
      }),
    );
  } finally {
    clearInterval(sampler);
  }
  const others = deployment.otherReplies();
  return {
    seconds: (performance.now() - started) / 1000,
    unanswered,
    latencies,
    peakRssMiB: peak / 1024 / 1024,
    tooManyRequests: deployment.telegram.calls.filter((call) => call.outcome === 429).length - before429,
    errorReplies: others.filter((reply) => ERROR_REPLY.test(reply.visible)).length,
    otherReplies: others.length,
  };
}

async function warmUp(deployment: BenchDeployment): Promise<void> {
  for (let i = 0; i < 5; i += 1) await deployment.say(90_000 + i, nextMark++).answered;
}

/**
 * The embedded gateway (`npm start`) on the stand-in Telegram: a burst of DMs until each has its own answer; then the
 * same burst while one chat is under flood control (every send to it answered 429 retry_after 30), comparing the
 * other chats' p95 with the first run's.
 */
export async function burstBenchmark(): Promise<BenchFigure[]> {
  const deployment = await startBenchDeployment({ workers: 0 });
  try {
    await warmUp(deployment);
    const free = await burst(deployment, 10_000);
    const freeP95 = percentile([...free.latencies.values()].flat(), 0.95);

    const stuckUser = 20_000;
    const flood: ApiError = { error_code: 429, description: "Too Many Requests: retry after 30", parameters: { retry_after: 30 } };
    const inStuckChat = (params: Record<string, unknown>): boolean => String(params.chat_id) === String(stuckUser);
    for (const method of ["sendMessage", "sendChatAction"]) deployment.telegram.failNext(method, flood, { times: 1_000, when: inStuckChat });
    const flooded = await burstWithoutStuckChat(deployment, stuckUser);
    const label = `${BURST} DMs from ${USERS} users`;
    return [
      { name: `burst ${label}: all answered`, value: free.seconds, unit: "s" },
      { name: "burst: unanswered", value: free.unanswered, unit: "", target: { max: 0 } },
      { name: "burst: 429s received", value: free.tooManyRequests, unit: "", target: { max: 0 } },
      { name: "burst: error replies", value: free.errorReplies, unit: "", target: { max: 0 } },
      { name: "burst: other replies (busy notices etc.)", value: free.otherReplies, unit: "" },
      { name: "burst: answer latency p95", value: freeP95, unit: "ms" },
      { name: "burst: peak RSS (gateway)", value: free.peakRssMiB, unit: "MiB" },
      { name: "burst, one chat flood-controlled: others' p95", value: flooded.othersP95, unit: "ms", target: { max: Math.round(Math.max(freeP95 * 1.2, freeP95 + 100)) } },
      { name: "burst, one chat flood-controlled: all others answered", value: flooded.seconds, unit: "s" },
      { name: `burst, one chat flood-controlled: unanswered after ${MAX_WAIT_MS / 1000} s`, value: flooded.unanswered, unit: "", target: { max: 0 } },
    ];
  } finally {
    await deployment.stop();
  }
}

/** The burst, with one more user whose chat is flood-controlled; waits for every other chat's answers only. */
async function burstWithoutStuckChat(deployment: BenchDeployment, stuckUser: number): Promise<{ othersP95: number; seconds: number; unanswered: number }> {
  // The stuck chat writes first, so its replies are the first ones queued for sending.
  for (let i = 0; i < 3; i += 1) void deployment.say(stuckUser, nextMark++).answered;
  const outcome = await burst(deployment, 30_000);
  return { othersP95: percentile([...outcome.latencies.values()].flat(), 0.95), seconds: outcome.seconds, unanswered: outcome.unanswered };
}

/**
 * Event-loop delay in the gateway process (perf_hooks.monitorEventLoopDelay, loaded with --import) while four
 * worker processes answer a burst, all on one SQLite file: the gateway's intake and delivery writes wait for the
 * workers' transactions.
 */
export async function loopDelayBenchmark(): Promise<BenchFigure[]> {
  const file = path.join(os.tmpdir(), `hermes-bench-loop-${process.pid}.json`);
  const deployment = await startBenchDeployment({ workers: 4, gatewayEnv: { NODE_OPTIONS: `--import ${LOOP_PROBE}`, BENCH_LOOP_DELAY_FILE: file } });
  try {
    await warmUp(deployment);
    await readLoopDelay(deployment, file);
    const outcome = await burst(deployment, 40_000);
    const delay = await readLoopDelay(deployment, file);
    return [
      { name: `4 workers, ${BURST}-message burst: all answered`, value: outcome.seconds, unit: "s" },
      { name: "gateway event-loop delay p99 (4 workers, burst)", value: delay.p99, unit: "ms", target: { max: 100 } },
      { name: "gateway event-loop delay max (4 workers, burst)", value: delay.max, unit: "ms", target: { max: 100 } },
      { name: "4 workers burst: error replies", value: outcome.errorReplies, unit: "", target: { max: 0 } },
    ];
  } finally {
    await deployment.stop();
    rmSync(file, { force: true });
  }
}

async function readLoopDelay(deployment: BenchDeployment, file: string): Promise<{ p99: number; max: number }> {
  rmSync(file, { force: true });
  deployment.gateway.kill("SIGUSR2");
  for (let i = 0; i < 200 && !existsSync(file); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
  const figures = JSON.parse(readFileSync(file, "utf8")) as { p99: number; max: number };
  return figures;
}
