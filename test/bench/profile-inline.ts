/**
 * Where an answered message's CPU goes: `npm run build && node --import tsx test/bench/profile-inline.ts` starts the
 * compiled embedded gateway on the stand-in Telegram with a zero-delay model (as the throughput benchmark does),
 * samples its CPU after a warm-up (test/bench/cpu-profile-probe.mjs) over 100 messages one at a time and a burst of
 * 200, and prints self time grouped by what it is spent on, then the costliest functions. The .cpuprofile file is
 * kept for Chrome DevTools; its path is printed. Not part of `npm run bench`.
 */
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startBenchDeployment } from "./bench-deployment.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const MESSAGES = 300;
const PROBE = fileURLToPath(new URL("./cpu-profile-probe.mjs", import.meta.url));

const NATIVE_SQLITE = new Set(["run", "get", "all", "prepare", "exec", "iterate", "pragma"]);
const NATIVE_WRITE = new Set(["writev", "writeUtf8String", "writeBuffer"]);
const NATIVE_FS = new Set(["lstat", "stat", "fstat", "open", "openFileHandle", "read", "close", "readFileUtf8", "internalModuleStat"]);

function category(frame: ProfileNode["callFrame"]): string {
  const { url, functionName: name } = frame;
  if (name === "(idle)") return "idle";
  if (name === "(garbage collector)") return "garbage collection";
  // The inspector session that takes the profile (cpu-profile-probe.mjs), not the gateway's work.
  if (name === "dispatch" && url === "") return "the profiler itself (inspector dispatch)";
  if (/packages\/store|kysely|better-sqlite3/.test(url) || (url === "" && NATIVE_SQLITE.has(name))) return "SQLite and Kysely (the store)";
  if (/pino|\/logging\//.test(url)) return "logging (pino)";
  // writev is mostly HTTP sockets (the model request, grammY), with the log line's stderr write among them.
  if (url === "" && NATIVE_WRITE.has(name)) return "socket and stderr writes (writev)";
  if (/openai|pi-ai|undici|webstreams/.test(url)) return "model HTTP client (openai SDK, undici, web streams)";
  if (/grammy|packages\/telegram|node-fetch|abort-controller/.test(url)) return "Telegram client (grammY, node-fetch)";
  if (/packages\/agent/.test(url)) return "agent core";
  if (/\/hooks\//.test(url)) return "hooks";
  if (/packages\/gateway/.test(url)) return "gateway";
  if (url === "" && NATIVE_FS.has(name)) return "file-system calls";
  if (url.startsWith("node:")) return "Node internals (promises, events, timers, http)";
  return `other: ${name || "(anonymous)"}`;
}

function where(frame: ProfileNode["callFrame"]): string {
  const file = frame.url.replace(/^file:\/\//, "").replace(/.*node_modules\//, "").replace(/.*\/(packages|apps|hooks)\//, "$1/");
  return `${frame.functionName || "(anonymous)"} ${file}${file ? `:${frame.lineNumber + 1}` : ""}`;
}

function print(title: string, totals: Map<string, number>, busyUs: number, limit: number): void {
  console.log(`\n${title}`);
  for (const [name, us] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
    console.log(`${((100 * us) / busyUs).toFixed(1).padStart(5)} %  ${(us / 1000 / MESSAGES).toFixed(2).padStart(6)} ms/message  ${name}`);
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "hermes-profile-"));
  const deployment = await startBenchDeployment({ workers: 0, gatewayEnv: { NODE_OPTIONS: `--import ${PROBE}`, BENCH_CPU_PROFILE_DIR: dir } });
  let cpuMs = 0;
  try {
    for (let i = 0; i < 20; i += 1) await deployment.say(100 + (i % 5), i).answered;
    deployment.gateway.kill("SIGUSR2");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = deployment.cpuMs();
    for (let i = 0; i < 100; i += 1) await deployment.say(200 + (i % 10), 1_000 + i).answered;
    await Promise.all(Array.from({ length: MESSAGES - 100 }, (_, i) => deployment.say(300 + (i % 40), 5_000 + i).answered));
    cpuMs = deployment.cpuMs() - before;
  } finally {
    await deployment.stop();
  }
  const file = (await readdir(dir)).find((name) => name.endsWith(".cpuprofile"));
  if (!file) throw new Error(`the gateway wrote no profile into ${dir}`);
  const profile = JSON.parse(await readFile(path.join(dir, file), "utf8")) as CpuProfile;
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byCategory = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busyUs = 0;
  profile.samples.forEach((id, index) => {
    const frame = frames.get(id);
    const us = profile.timeDeltas[index] ?? 0;
    if (!frame || frame.functionName === "(idle)") return;
    busyUs += us;
    byCategory.set(category(frame), (byCategory.get(category(frame)) ?? 0) + us);
    byFunction.set(where(frame), (byFunction.get(where(frame)) ?? 0) + us);
  });
  console.log(`profile: ${path.join(dir, file)}`);
  console.log(`CPU per message (/proc, while sampling): ${(cpuMs / MESSAGES).toFixed(1)} ms; sampled busy time: ${(busyUs / 1000 / MESSAGES).toFixed(1)} ms`);
  print("self time by kind", byCategory, busyUs, 15);
  print("self time by function", byFunction, busyUs, 25);
}

await main();
