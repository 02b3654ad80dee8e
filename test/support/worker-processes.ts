import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "./run-cli.js";

const TSX_LOADER = pathToFileURL(path.join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs")).href;
const AGENT_WORKER_CHILD = path.join(REPO_ROOT, "test/support/agent-worker-child.ts");

export interface WorkerProcess {
  readonly pid: number;
  readonly child: ChildProcess;
  /** Everything it logged, for a failing test's message. */
  output(): string;
  alive(): boolean;
  exited: Promise<void>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Starts test/support/agent-worker-child.ts with exactly `env` (plus PATH) and resolves once it takes jobs. It runs
 * in `cwd` (outside the repository, e.g. the state folder), so tsx finds no tsconfig paths and @hermes/* resolve to
 * the compiled dist/ like `npm run worker`: only the child itself is compiled on start, which keeps restarts quick.
 */
export async function startAgentWorker(env: Record<string, string>, cwd: string, startTimeoutMs = 60_000): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ["--import", TSX_LOADER, AGENT_WORKER_CHILD], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString("utf8")).slice(-20_000);
  };
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // A test that fails before cleaning up must not leave workers behind.
  const killOnExit = (): void => void child.kill("SIGKILL");
  process.once("exit", killOnExit);
  void exited.then(() => process.off("exit", killOnExit));
  const alive = (): boolean => child.exitCode === null && child.signalCode === null;
  const worker: WorkerProcess = {
    pid: child.pid ?? -1,
    child,
    output: () => output,
    alive,
    exited,
    kill: async (signal) => {
      if (alive()) child.kill(signal);
      await exited;
    },
  };
  await new Promise<void>((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(() => reject(new Error(`worker not ready within ${startTimeoutMs} ms:\n${output}`)), startTimeoutMs);
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      if (stdout.includes("ready\n")) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`worker exited before it was ready:\n${output}`));
    });
  });
  return worker;
}
