import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
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

/**
 * The node options `npm start` / `npm run worker` put before the script in package.json (e.g. the gateway's V8
 * young-generation size), so a process started here runs with the same settings as the real one.
 */
export function nodeOptionsOf(name: "gateway" | "worker"): string[] {
  const scripts = (JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  const words = (scripts[name === "gateway" ? "start" : "worker"] ?? "").trim().split(/\s+/);
  const script = words.indexOf(`apps/${name}/dist/main.js`);
  if (words[0] !== "node" || script < 0) throw new Error(`package.json does not start ${name} as "node [options] apps/${name}/dist/main.js"`);
  return words.slice(1, script);
}

/** Starts the compiled `apps/<name>/dist/main.js` as `npm start` / `npm run worker` do, with exactly the given environment. */
export function startApp(name: "gateway" | "worker", env: Record<string, string>): AppProcess {
  const child = spawn(process.execPath, [...nodeOptionsOf(name), path.join(REPO_ROOT, `apps/${name}/dist/main.js`)], {
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
