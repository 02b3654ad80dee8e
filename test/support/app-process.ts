import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "./run-cli.js";

export interface AppProcess {
  readonly child: ChildProcess;
  stderr(): string;
  /** Resolves when a log line containing `text` has been printed. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
}

/** Starts the compiled `apps/<name>/dist/main.js` (what `npm start` / `npm run worker` run) with exactly the given environment. */
export function startApp(name: "gateway" | "worker", env: Record<string, string>): AppProcess {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, `apps/${name}/dist/main.js`)], {
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

/** The HTTP address a gateway process logged in its "gateway started" line. */
export function httpUrl(app: AppProcess): string {
  const line = app.stderr().split("\n").find((logged) => logged.includes('"msg":"gateway started"'));
  const url = line === undefined ? undefined : /"http":"(http:\/\/[^"]+)"/.exec(line)?.[1];
  if (url === undefined) throw new Error(`no HTTP address in the log: ${app.stderr().slice(-2000)}`);
  return url;
}
