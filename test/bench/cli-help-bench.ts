import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { BenchFigure } from "./gateway-bench.js";
import { REPO_ROOT } from "../support/run-cli.js";

// Every command and subcommand of `hermes` (as in test/cli-help.test.ts).
const HELP_COMMANDS: readonly string[][] = [
  [],
  ["chat"],
  ["setup"],
  ["status"],
  ["doctor"],
  ["pairing", "approve"],
  ["pairing", "list"],
  ["pairing", "revoke"],
  ["hooks", "list"],
  ["hooks", "enable"],
  ["hooks", "disable"],
  ["hooks", "install"],
  ["hooks", "test"],
  ["sessions", "list"],
  ["sessions", "show"],
];

const TARGET_MS = 500;

/**
 * `node apps/cli/dist/main.js <command> --help`, each command `rounds` times, wall-clock per process (spawn to exit):
 * median and maximum over all runs. Needs the compiled CLI (`npm run build`).
 */
export async function cliHelpBenchmark(rounds = 5): Promise<BenchFigure[]> {
  const home = await mkdtemp(path.join(os.tmpdir(), "hermes-bench-help-"));
  const main = path.join(REPO_ROOT, "apps/cli/dist/main.js");
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, HERMES_HOME: path.join(home, "state") };
  const timings: number[] = [];
  try {
    for (let round = 0; round < rounds; round += 1) {
      for (const words of HELP_COMMANDS) {
        const started = process.hrtime.bigint();
        const run = spawnSync(process.execPath, [main, ...words, "--help"], { env, cwd: home, stdio: ["ignore", "ignore", "pipe"] });
        timings.push(Number(process.hrtime.bigint() - started) / 1e6);
        if (run.status !== 0) throw new Error(`hermes ${words.join(" ")} --help exited ${String(run.status)}: ${run.stderr.toString("utf8")}`);
      }
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
  const sorted = [...timings].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const max = sorted[sorted.length - 1] ?? 0;
  return [
    { name: "hermes <command> --help (median)", value: median, unit: "ms", target: { max: TARGET_MS } },
    { name: "hermes <command> --help (slowest)", value: max, unit: "ms", target: { max: TARGET_MS } },
  ];
}
