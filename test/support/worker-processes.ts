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

export interface StandbyWorker {
  /** The loaded process; kill it if it is never activated. */
  readonly worker: WorkerProcess;
  /** Lets it take jobs; resolves once it does. */
  activate(): Promise<WorkerProcess>;
}

/**
 * Starts test/support/agent-worker-child.ts with exactly `env` (plus PATH) and resolves once it takes jobs. It runs
 * in `cwd` (outside the repository, e.g. the state folder), so tsx finds no tsconfig paths and @hermes/* resolve to
 * the compiled dist/ like `npm run worker`: only the child itself is compiled on start.
 */
export async function startAgentWorker(env: Record<string, string>, cwd: string, startTimeoutMs = 60_000): Promise<WorkerProcess> {
  return (await loadAgentWorker(env, cwd, startTimeoutMs)).activate();
}

/** Starts a worker that loads everything (modules, agents, store) but takes no job until activated. */
export async function loadAgentWorker(env: Record<string, string>, cwd: string, startTimeoutMs = 60_000): Promise<StandbyWorker> {
  const child = spawn(process.execPath, ["--import", TSX_LOADER, AGENT_WORKER_CHILD], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env, WORKER_STANDBY: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  let stdout = "";
  child.stderr?.on("data", (chunk: Buffer) => void (output = (output + chunk.toString("utf8")).slice(-20_000)));
  child.stdout?.on("data", (chunk: Buffer) => void (stdout += chunk.toString("utf8")));
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
  /** Resolves once stdout has shown `line`. */
  const printed = (line: string): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`worker did not print "${line}" within ${startTimeoutMs} ms:\n${output}`)), startTimeoutMs);
      const check = (): void => {
        if (!stdout.includes(`${line}\n`)) return;
        clearTimeout(timer);
        child.stdout?.off("data", check);
        resolve();
      };
      child.stdout?.on("data", check);
      check();
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`worker exited before it printed "${line}":\n${output}`));
      });
    });
  await printed("loaded");
  return {
    worker,
    activate: async () => {
      child.stdin?.write("go\n");
      await printed("ready");
      return worker;
    },
  };
}
