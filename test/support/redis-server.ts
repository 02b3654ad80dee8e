import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { findRedisServer, lookupOnPath, MISSING_REDIS_LINE } from "./redis-setup.js";
import { freePort } from "./free-port.js";

export interface TestRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;
const PORT_ATTEMPTS = 3;

/** Starts a private, throw-away redis-server on a free loopback port; it lives as this process's child. */
export async function startRedis(): Promise<TestRedis> {
  // The suite's global set-up installs one when it can; this only guards runs that bypass it.
  const binary = findRedisServer((name) => lookupOnPath(name, process.env.PATH));
  if (binary === undefined) throw new Error(MISSING_REDIS_LINE);
  let lastError: unknown;
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt += 1) {
    // Another process may take the free port before redis binds it; a fresh port then usually works.
    try {
      return await startOnPort(binary, await freePort());
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

/** Starts one on the given loopback port, e.g. again on the port of one a test stopped (a Redis restart). */
export async function startRedisOnPort(port: number): Promise<TestRedis> {
  const binary = findRedisServer((name) => lookupOnPath(name, process.env.PATH));
  if (binary === undefined) throw new Error(MISSING_REDIS_LINE);
  return startOnPort(binary, port);
}

async function startOnPort(binary: string, port: number): Promise<TestRedis> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "hermes-redis-"));
  const child = spawn(
    binary,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString("utf8")).slice(-4_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.once("error", (error) => (output += `\n${error.message}`));
  // If the test process exits without stop(), the server must not outlive it.
  const killOnExit = (): void => void child.kill("SIGKILL");
  process.once("exit", killOnExit);

  const cleanUp = async (): Promise<void> => {
    process.off("exit", killOnExit);
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await waitForPong(port, child, exited);
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    await cleanUp();
    throw new Error(`${path.basename(binary)} did not start on port ${port}: ${String(error)}\n${output}`);
  }

  let stopping: Promise<void> | undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () => {
      stopping ??= (async () => {
        if (isRunning(child)) {
          const taken = await sendCommand(port, "SHUTDOWN NOSAVE").then(() => true, () => false);
          // A server that does not take the command (paused, stuck) is not going to shut down by itself.
          if (!taken) child.kill("SIGKILL");
          const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
          await exited;
          clearTimeout(timer);
        }
        await cleanUp();
      })();
      return stopping;
    },
  };
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}


async function waitForPong(port: number, child: ChildProcess, exited: Promise<void>): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let gone = false;
  void exited.then(() => (gone = true));
  while (Date.now() < deadline) {
    if (gone || !isRunning(child)) throw new Error("redis-server exited");
    const reply = await sendCommand(port, "PING").catch(() => "");
    if (reply.startsWith("+PONG")) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("no PONG in time");
}

/** Sends one inline command and resolves with the first reply bytes (or "" when the server closes silently). */
function sendCommand(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    let reply = "";
    socket.setTimeout(1_000, () => socket.destroy(new Error("redis command timed out")));
    socket.once("connect", () => socket.write(`${command}\r\n`));
    socket.on("data", (chunk) => {
      reply += chunk.toString("utf8");
      if (reply.includes("\r\n")) socket.end();
    });
    socket.once("error", reject);
    socket.once("close", () => resolve(reply));
  });
}
