import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "./run-cli.js";

const TSX_LOADER = pathToFileURL(path.join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs")).href;

export interface AppProcess {
  readonly child: ChildProcess;
  stderr(): string;
  /** Resolves when a log line containing `text` has been printed. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
}

/** Starts `apps/<name>/src/main.ts` as a real process with exactly the given environment. */
export function startApp(name: "gateway" | "worker", env: Record<string, string>): AppProcess {
  const child = spawn(process.execPath, ["--import", TSX_LOADER, path.join(REPO_ROOT, `apps/${name}/src/main.ts`)], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    for (const waiter of [...waiters]) {
      if (stderr.includes(waiter.text)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  });
  child.stdout?.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return {
    child,
    stderr: () => stderr,
    exited,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    waitFor: (text, timeoutMs = 20_000) =>
      new Promise<void>((resolve, reject) => {
        if (stderr.includes(text)) return resolve();
        const timer = setTimeout(() => reject(new Error(`"${text}" not seen within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`)), timeoutMs);
        waiters.push({ text, resolve: () => { clearTimeout(timer); resolve(); } });
        void exited.then(() => { clearTimeout(timer); if (!stderr.includes(text)) reject(new Error(`${name} exited before "${text}"; stderr: ${stderr.slice(-2000)}`)); });
      }),
  };
}
