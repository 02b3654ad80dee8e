import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { findRedisServer, lookupOnPath, MISSING_REDIS_LINE } from "./redis-setup.js";
import { freePort } from "./free-port.js";

export interface RestartableRedis {
  url: string;
  port: number;
  /** Stops the server: `save` writes its dump first (a clean restart), otherwise its data is gone (a crash, a new pod). */
  stop(options: { save: boolean }): Promise<void>;
  /** Starts it again on the same port and folder; it loads the dump when the last stop saved one. */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;

/** A private redis-server on a free loopback port that a test can stop and start again on that same port. */
export async function startRestartableRedis(): Promise<RestartableRedis> {
  const binary = findRedisServer((name) => lookupOnPath(name, process.env.PATH));
  if (binary === undefined) throw new Error(MISSING_REDIS_LINE);
  const dir = await mkdtemp(path.join(os.tmpdir(), "hermes-redis-restart-"));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const killOnExit = (): void => void child?.kill("SIGKILL");
  process.on("exit", killOnExit);

  const start = async (): Promise<void> => {
    // No background saves: a dump exists only when a test's stop asked for one.
    const spawned = spawn(binary, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--dbfilename", "dump.rdb"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    child = spawned;
    exited = new Promise<void>((resolve) => spawned.once("exit", () => resolve()));
    await waitForPing(port, START_TIMEOUT_MS);
  };
  const stop = async ({ save }: { save: boolean }): Promise<void> => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const admin = new Redis({ host: "127.0.0.1", port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    await admin.connect();
    // SHUTDOWN closes the connection instead of answering.
    await admin.call("SHUTDOWN", save ? "SAVE" : "NOSAVE").catch(() => undefined);
    admin.disconnect();
    await exited;
    if (!save) await rm(path.join(dir, "dump.rdb"), { force: true });
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    close: async () => {
      if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
      process.off("exit", killOnExit);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPing(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const probe = new Redis({ host: "127.0.0.1", port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on("error", () => undefined);
    const answered = await probe
      .connect()
      .then(() => probe.ping())
      .then((reply) => reply === "PONG")
      .catch(() => false);
    probe.disconnect();
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
