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
import { printProfileSummary, summariseProfile, type CpuProfile } from "./cpu-profile-summary.js";

const MESSAGES = 300;
const PROBE = fileURLToPath(new URL("./cpu-profile-probe.mjs", import.meta.url));

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
  const summary = summariseProfile(profile);
  console.log(`profile: ${path.join(dir, file)}`);
  console.log(`CPU per message (/proc, while sampling): ${(cpuMs / MESSAGES).toFixed(1)} ms; sampled busy time: ${(summary.busyUs / 1000 / MESSAGES).toFixed(1)} ms`);
  printProfileSummary(summary, MESSAGES, 15);
}

await main();
