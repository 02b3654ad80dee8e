import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// Named by path so the CLI also starts from a working folder outside the repository; compiled by `pretest`.
const CLI_MAIN = path.join(REPO_ROOT, "apps/cli/dist/main.js");

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The whole environment of the child: tests never pass the developer's own variables (or keys) through. */
  env: Record<string, string>;
  stdin?: string;
  /** Run through `npm run <script> --silent` instead of node directly (slower; for the script wiring itself). */
  npmScript?: string;
  /** Working folder of the CLI (default: the repository). */
  cwd?: string;
  /** Called once the process is running, e.g. to send it a signal. */
  onSpawn?: (child: { kill: (signal: NodeJS.Signals) => boolean; stdoutSoFar: () => string }) => void;
  timeoutMs?: number;
}

/** Runs the `hermes` CLI as a real process and collects what it printed. */
export function runCli(args: string[], options: CliOptions): Promise<CliRun> {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...options.env };
  const cwd = options.cwd ?? REPO_ROOT;
  const child = options.npmScript
    ? spawn("npm", ["run", options.npmScript, "--silent"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] })
    : spawn(process.execPath, [CLI_MAIN, ...args], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  if (options.stdin !== undefined) child.stdin.end(options.stdin);
  options.onSpawn?.({ kill: (signal) => child.kill(signal), stdoutSoFar: () => stdout });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`CLI did not exit within ${options.timeoutMs ?? 20_000} ms; stdout: ${stdout}; stderr: ${stderr}`));
    }, options.timeoutMs ?? 20_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
