import { describe, it, expect, beforeEach, afterEach } from "vitest";
import { promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { silentLogger } from "../observability/logger.js";
import type { ToolContext, ToolResult } from "../tools/types.js";
import { terminalTool, type TerminalOptions } from "./terminal.js";
import { scrubEnvironment } from "./terminal-env.js";
import { createWorkspace, type Workspace } from "./workspace.js";

let tempDir: string;
let workspace: Workspace;
let startedPids: number[];

function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { signal, toolCallId: "call-1", sessionId: "session-1", logger: silentLogger };
}

function run(args: Record<string, unknown>, options: Partial<TerminalOptions> = {}, signal?: AbortSignal): Promise<ToolResult> {
  const tool = terminalTool({ workspace, baseEnv: { PATH: process.env["PATH"] }, ...options });
  return tool.handler(args, toolContext(signal));
}

function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  // A zombie still answers signal 0 until its new parent reaps it, but it is already dead.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

async function waitUntil(condition: () => boolean | Promise<boolean>, attempts = 250): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

async function readPid(name: string): Promise<number> {
  const pid = Number((await fs.readFile(path.join(workspace.root, name), "utf8")).trim());
  startedPids.push(pid);
  return pid;
}

beforeEach(async () => {
  tempDir = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-"));
  workspace = await createWorkspace(path.join(tempDir, "ws"));
  await fs.mkdir(path.join(workspace.root, "sub"));
  startedPids = [];
});

afterEach(async () => {
  for (const pid of startedPids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await fs.rm(tempDir, { recursive: true, force: true });
});

describe("terminal", () => {
  it("runs a command and reports output and exit code", async () => {
    const result = await run({ command: "echo hello; echo oops >&2; exit 3" });
    expect(result.isError).toBe(false);
    expect(result.content).toContain("hello");
    expect(result.content).toContain("oops");
    expect(result.content.endsWith("\n\nexit code: 3")).toBe(true);
    expect(result.details).toMatchObject({ exitCode: 3, timedOut: false });
  });

  it("says when there was no output", async () => {
    const result = await run({ command: "true" });
    expect(result.content).toBe("(no output)\n\nexit code: 0");
  });

  it("runs in the workspace root by default and in a sub-folder when asked", async () => {
    expect((await run({ command: "pwd" })).content).toBe(`${workspace.root}\n\nexit code: 0`);
    expect((await run({ command: "pwd", cwd: "sub" })).content).toBe(`${path.join(workspace.root, "sub")}\n\nexit code: 0`);
  });

  it.each(["../", "..", "sub/../..", "/etc"])("refuses the working directory %j outside the workspace", async (cwd) => {
    const result = await run({ command: "touch escaped-marker", cwd });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("outside the workspace");
    await expect(fs.access(path.join(tempDir, "escaped-marker"))).rejects.toThrow();
    await expect(fs.access(path.join(workspace.root, "escaped-marker"))).rejects.toThrow();
  });

  it("refuses a working directory that does not exist", async () => {
    const result = await run({ command: "pwd", cwd: "missing" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("does not exist");
  });

  it("kills the command and its child processes on timeout", async () => {
    const result = await run({ command: "sleep 30 & echo $! > grandchild.pid; echo started; wait", timeout_s: 1 });
    const grandchild = await readPid("grandchild.pid");
    expect(result.isError).toBe(true);
    expect(result.content).toContain("started");
    expect(result.content.endsWith("timed out after 1s")).toBe(true);
    expect(result.details).toMatchObject({ timedOut: true });
    expect(await waitUntil(() => isGone(grandchild))).toBe(true);
  });

  it("follows up with SIGKILL when the processes ignore SIGTERM", async () => {
    const command = "trap '' TERM; sleep 30 & echo $! > stubborn.pid; wait; wait";
    const result = await run({ command, timeout_s: 0.5 });
    const stubborn = await readPid("stubborn.pid");
    expect(result.isError).toBe(true);
    expect(result.content.endsWith("timed out after 0.5s")).toBe(true);
    expect(await waitUntil(() => isGone(stubborn))).toBe(true);
  });

  it("kills the process group when the call is aborted", async () => {
    const controller = new AbortController();
    const pending = run({ command: "sleep 30 & echo $! > grandchild.pid; wait" }, {}, controller.signal);
    const pidFile = path.join(workspace.root, "grandchild.pid");
    const written = await waitUntil(async () => (await fs.readFile(pidFile, "utf8").catch(() => "")).trim() !== "");
    expect(written).toBe(true);
    const grandchild = await readPid("grandchild.pid");
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.content.endsWith("cancelled")).toBe(true);
    expect(await waitUntil(() => isGone(grandchild))).toBe(true);
  });

  it("returns without waiting for background processes that keep the output open", async () => {
    const result = await run({ command: "sleep 30 & echo $! > background.pid; echo launched" });
    const background = await readPid("background.pid");
    expect(result.isError).toBe(false);
    expect(result.content).toContain("launched");
    expect(result.content).toContain("background processes are still running");
    expect(result.content.endsWith("exit code: 0")).toBe(true);
    expect(isGone(background)).toBe(false);
  });

  it("removes credentials and HERMES_* settings from the environment", async () => {
    const baseEnv = {
      PATH: process.env["PATH"],
      PLAIN_SETTING: "visible",
      OPENAI_API_KEY: "sk-1",
      GITHUB_TOKEN: "ghp-2",
      db_password: "pw-3",
      SSH_AUTH_SOCK: "/tmp/agent",
      SESSION_COOKIE: "c-4",
      AWS_SECRET_ACCESS_KEY: "aws-5",
      HERMES_HOME: "/home/hermes",
      GCP_CREDENTIALS: "gcp-6",
      MYSQL_PASSWD: "pw-7",
    };
    const result = await run({ command: "env" }, { baseEnv });
    expect(result.content).toContain("PLAIN_SETTING=visible");
    for (const name of Object.keys(baseEnv).filter((key) => key !== "PATH" && key !== "PLAIN_SETTING")) {
      expect(result.content).not.toContain(`${name}=`);
    }
  });

  it("keeps the head and tail of long output", async () => {
    const result = await run({ command: "seq 1 20000" }, { maxOutputChars: 1_000 });
    const [output = ""] = result.content.split("\n\nexit code: 0");
    expect(output.startsWith("1\n2\n3\n")).toBe(true);
    expect(output.endsWith("19999\n20000")).toBe(true);
    expect(output).toMatch(/\n\[\.\.\. \d+ characters omitted \.\.\.\]\n/);
    expect(output.length).toBeLessThan(1_100);
    expect(result.details).toMatchObject({ exitCode: 0 });
  });

  it("reports a shell that cannot be started as an error", async () => {
    const result = await run({ command: "echo hi" }, { shell: path.join(tempDir, "no-such-shell") });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^failed to start the command: /);
  });

  it("measures the duration with the injected clock", async () => {
    let tick = 1_000;
    const result = await run({ command: "true" }, { now: () => (tick += 250) });
    expect(result.details).toMatchObject({ durationMs: 250 });
  });

  it("keeps the registry timeout above the longest allowed command", () => {
    const tool = terminalTool({ workspace, maxTimeoutMs: 120_000 });
    expect(tool).toMatchObject({ name: "terminal", concurrency: "never-parallel" });
    expect(tool.timeoutMs).toBeGreaterThan(120_000);
  });
});

describe("scrubEnvironment", () => {
  it("drops unset values and matches names case-insensitively", () => {
    expect(scrubEnvironment({ HOME: "/home/u", UNSET: undefined, my_Token: "t", hermes_debug: "1", Lang: "C" })).toEqual({
      HOME: "/home/u",
      Lang: "C",
    });
  });
});
