import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { nodeOptionsOf } from "../support/app-process.js";
import { REPO_ROOT } from "../support/run-cli.js";
import type { BenchFigure } from "./gateway-bench.js";

const RUNS = 7;
const TOKEN = "123456:BENCH-startup";

/**
 * Process start → the first Telegram `getUpdates` request, for the compiled gateway (what `npm start` runs). The
 * Telegram stand-in here only notes when each long poll arrives and never answers it, so the figure is start-up alone.
 */
export async function startupBenchmark(): Promise<BenchFigure[]> {
  let onPoll: (() => void) | undefined;
  const server = http.createServer((request, response) => {
    request.resume().on("end", () => {
      const method = /\/bot[^/]+\/(\w+)$/.exec(request.url ?? "")?.[1];
      if (method === "getUpdates") {
        onPoll?.();
        return;
      }
      const result = method === "getMe" ? { id: 1, is_bot: true, first_name: "Bench", username: "bench_bot" } : true;
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const apiRoot = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const samples: number[] = [];
  try {
    for (let run = 0; run < RUNS; run += 1) samples.push(await timeOneStart(apiRoot, (listener) => (onPoll = listener)));
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  samples.sort((a, b) => a - b);
  return [
    { name: "gateway start → first Telegram getUpdates, median", value: samples[Math.floor(RUNS / 2)] ?? NaN, unit: "ms", target: { max: 1500 } },
    { name: "gateway start → first Telegram getUpdates, slowest", value: samples[RUNS - 1] ?? NaN, unit: "ms" },
  ];
}

async function timeOneStart(apiRoot: string, listen: (listener: () => void) => void): Promise<number> {
  const home = await mkdtemp(path.join(os.tmpdir(), "hermes-bench-start-"));
  const polled = new Promise<void>((resolve) => listen(resolve));
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeOptionsOf("gateway"), path.join(REPO_ROOT, "apps/gateway/dist/main.js")], {
    cwd: home,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      HERMES_HOME: path.join(home, "state"),
      HERMES_BASE_URL: "http://127.0.0.1:9/v1",
      HERMES_MODEL: "bench-model",
      HERMES_API_KEY: "bench-key",
      HERMES_HTTP_PORT: "0",
      HERMES_REFLECTION: "off",
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: apiRoot,
    },
    stdio: "ignore",
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    const outcome = await Promise.race([polled.then(() => "polled" as const), exited.then(() => "exited" as const)]);
    if (outcome === "exited") throw new Error("the gateway exited before it polled Telegram");
    return performance.now() - started;
  } finally {
    child.kill("SIGKILL");
    await exited;
    await rm(home, { recursive: true, force: true });
  }
}
