import { spawn, type ChildProcess } from "node:child_process";

export interface ProcessGroupSpec {
  shell: string;
  command: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  onOutput: (text: string) => void;
}

export type ProcessGroupOutcome =
  | { kind: "spawn-failed"; message: string }
  | {
      kind: "finished";
      exitCode: number | null;
      exitSignal: NodeJS.Signals | null;
      stoppedBy: "timeout" | "abort" | undefined;
      /** The shell exited but processes it left behind still hold the output pipes; they were left running. */
      outputAbandoned: boolean;
    };

// How long processes get to exit after SIGTERM before SIGKILL.
const KILL_GRACE_MS = 2_000;
// How long to keep reading after the shell exits; only background processes holding the pipes take longer.
const DRAIN_MS = 1_000;

/**
 * Runs `shell -c command` as the leader of a new process group, so a timeout or abort can kill everything it
 * started, not just the shell. stdin is closed: nothing can wait for input that will never come.
 */
export function runInProcessGroup(spec: ProcessGroupSpec): Promise<ProcessGroupOutcome> {
  return new Promise((resolve) => {
    if (spec.signal.aborted) {
      resolve({ kind: "finished", exitCode: null, exitSignal: null, stoppedBy: "abort", outputAbandoned: false });
      return;
    }
    let child: ChildProcess;
    try {
      child = spawn(spec.shell, ["-c", spec.command], {
        cwd: spec.cwd,
        env: spec.env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
    } catch (error) {
      resolve({ kind: "spawn-failed", message: error instanceof Error ? error.message : String(error) });
      return;
    }

    const timers: NodeJS.Timeout[] = [];
    let stoppedBy: "timeout" | "abort" | undefined;
    let settled = false;

    const stop = (reason: "timeout" | "abort"): void => {
      if (stoppedBy !== undefined || settled) return;
      stoppedBy = reason;
      signalGroup(child.pid, "SIGTERM");
      timers.push(setTimeout(() => signalGroup(child.pid, "SIGKILL"), KILL_GRACE_MS));
    };
    const onAbort = (): void => stop("abort");

    const settle = (outcome: ProcessGroupOutcome): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      spec.signal.removeEventListener("abort", onAbort);
      // A stopped group is killed outright, so nothing that ignored SIGTERM outlives the call.
      if (stoppedBy !== undefined) signalGroup(child.pid, "SIGKILL");
      resolve(outcome);
    };

    timers.push(setTimeout(() => stop("timeout"), spec.timeoutMs));
    spec.signal.addEventListener("abort", onAbort, { once: true });

    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding("utf8");
      stream?.on("data", (text: string) => spec.onOutput(text));
    }

    child.on("error", (error) => settle({ kind: "spawn-failed", message: error.message }));
    child.on("close", (exitCode, exitSignal) =>
      settle({ kind: "finished", exitCode, exitSignal, stoppedBy, outputAbandoned: false }),
    );
    child.on("exit", (exitCode, exitSignal) => {
      if (settled) return;
      timers.push(
        setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          settle({ kind: "finished", exitCode, exitSignal, stoppedBy, outputAbandoned: stoppedBy === undefined });
        }, DRAIN_MS),
      );
    });
  });
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone, which is what we wanted.
  }
}
