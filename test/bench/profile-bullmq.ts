/**
 * Where an answered message's CPU and wait go in BullMQ mode: `npm run build && node --import tsx
 * test/bench/profile-bullmq.ts [workers]` starts the compiled gateway with REDIS_URL and `npm run worker` processes
 * (default 1) on the stand-in Telegram with a zero-delay model, as the throughput benchmark does. It first records the
 * Redis commands of one message (MONITOR, with their times relative to the user's message and which connection sent
 * them), then samples the CPU of every process after a warm-up (test/bench/cpu-profile-probe.mjs) over 100 messages
 * one at a time and a burst of 200, and prints self time grouped by kind per process. The .cpuprofile files are kept
 * for Chrome DevTools; their folder is printed. Not part of `npm run bench`.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { startBenchDeployment, type BenchDeployment } from "./bench-deployment.js";
import { printProfileSummary, summariseProfile, type CpuProfile, type ExtraKind } from "./cpu-profile-summary.js";
import { startRedis } from "../support/redis-server.js";

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 100);
const BURST = Number(process.env.BENCH_BURST ?? 200);
const MESSAGES = SEQUENTIAL + BURST;
// `BENCH_MONITOR=<n>`: record n messages' Redis commands (default 1); `BENCH_PROFILE=0`: no CPU profile (timings
// undisturbed); `BENCH_SEQUENTIAL`, `BENCH_BURST`: messages one at a time and at once (default 100, 200).
const MONITORED = Number(process.env.BENCH_MONITOR ?? 1);
const PROFILE = process.env.BENCH_PROFILE !== "0";
const PROBE = fileURLToPath(new URL("./cpu-profile-probe.mjs", import.meta.url));

const QUEUE_KINDS: ExtraKind[] = [
  { url: /node_modules\/bullmq/, kind: "BullMQ" },
  { url: /ioredis|redis-parser|cluster-key-slot|msgpackr/, kind: "ioredis (and msgpackr)" },
  { url: /packages\/gateway\/(src|dist)\/queue|bullmq-|session-waiters|session-lock/, kind: "gateway: queue" },
];

/** The Redis commands one message causes, with milliseconds since the user wrote it and the sending connection. */
async function monitorOneMessage(deployment: BenchDeployment, redisUrl: string, mark: number): Promise<void> {
  const names = new Map<string, string>();
  const admin = new Redis(redisUrl);
  const monitored = new Redis(redisUrl);
  const monitor = await monitored.monitor();
  const lines: Array<{ at: number; client: string; args: string[] }> = [];
  monitor.on("monitor", (time: string, args: string[], source: string) => lines.push({ at: Number(time) * 1000, client: source, args }));
  try {
    const clients = String(await admin.client("LIST")).split("\n");
    for (const line of clients) {
      const addr = /addr=(\S+)/.exec(line)?.[1];
      const name = /name=(\S*)/.exec(line)?.[1];
      if (addr) names.set(addr, name || "(unnamed)");
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    lines.length = 0;
    const wallStart = Date.now();
    const message = deployment.say(600 + mark, mark);
    const answeredAt = await message.answered;
    await new Promise((resolve) => setTimeout(resolve, 300));
    console.log(`\nRedis commands of one message (answered after ${(answeredAt - message.sentAt).toFixed(1)} ms):`);
    for (const { at, client, args } of lines) {
      const shown = args.map((arg) => (arg.length > 60 ? `${arg.slice(0, 57)}...` : arg)).join(" ");
      console.log(`${(at - wallStart).toFixed(1).padStart(8)} ms  ${(names.get(client) ?? client).padEnd(22)} ${shown}`);
    }
  } finally {
    monitor.disconnect();
    monitored.disconnect();
    admin.disconnect();
  }
}

function summarise(label: string, profile: CpuProfile, cpuMs: number): void {
  const summary = summariseProfile(profile, QUEUE_KINDS);
  console.log(`\n=== ${label}: CPU per message (/proc, while sampling) ${(cpuMs / MESSAGES).toFixed(1)} ms; sampled busy time ${(summary.busyUs / 1000 / MESSAGES).toFixed(1)} ms`);
  printProfileSummary(summary, MESSAGES, 16);
}

async function main(): Promise<void> {
  const workers = Number(process.argv[2] ?? 1);
  const dir = await mkdtemp(path.join(os.tmpdir(), "hermes-profile-bullmq-"));
  const redis = await startRedis();
  const deployment = await startBenchDeployment({ workers, redis, env: PROFILE ? { NODE_OPTIONS: `--import ${PROBE}`, BENCH_CPU_PROFILE_DIR: dir } : {} });
  const apps = [deployment.gateway, ...deployment.workers];
  const pids = apps.map((app) => app.child.pid ?? 0);
  const cpuOf = (pid: number): number => {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return ((Number(fields[11]) || 0) + (Number(fields[12]) || 0)) * 10;
  };
  const cpuMs: number[] = [];
  try {
    for (let i = 0; i < 20; i += 1) await deployment.say(100 + (i % 5), i).answered;
    for (let i = 0; i < MONITORED; i += 1) await monitorOneMessage(deployment, redis.url, 90 + i);
    if (!PROFILE) return;
    for (const app of apps) app.kill("SIGUSR2");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = pids.map(cpuOf);
    for (let i = 0; i < SEQUENTIAL; i += 1) await deployment.say(200 + (i % 10), 1_000 + i).answered;
    await Promise.all(Array.from({ length: BURST }, (_, i) => deployment.say(300 + (i % 40), 5_000 + i).answered));
    await new Promise((resolve) => setTimeout(resolve, 300));
    pids.forEach((pid, index) => cpuMs.push(cpuOf(pid) - (before[index] ?? 0)));
  } finally {
    await deployment.stop();
    await redis.stop();
  }
  if (!PROFILE) return;
  console.log(`\nprofiles: ${dir}`);
  const files = await readdir(dir);
  for (const [index, pid] of pids.entries()) {
    const file = files.find((name) => name === `${pid}.cpuprofile`);
    const label = index === 0 ? "gateway" : `worker ${index}`;
    if (!file) {
      console.log(`${label} wrote no profile`);
      continue;
    }
    summarise(label, JSON.parse(await readFile(path.join(dir, file), "utf8")) as CpuProfile, cpuMs[index] ?? 0);
  }
  console.log(`\nCPU per message, all processes: ${(cpuMs.reduce((a, b) => a + b, 0) / MESSAGES).toFixed(1)} ms`);
}

await main();
