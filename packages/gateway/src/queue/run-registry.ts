import { RunAbortedError, type AgentRunJob, type RunAbortCause } from "./types.js";

/** A run in progress in this process: its abort signal, and a way to say it has ended. */
export interface RunHandle {
  readonly job: AgentRunJob;
  readonly signal: AbortSignal;
  /** Why the run was aborted, if it was. */
  abortCause(): RunAbortCause | undefined;
  finish(): void;
}

interface RegisteredRun {
  job: AgentRunJob;
  controller: AbortController;
}

/** The runs executing in this process, so a stop or a shutdown can reach their signals. */
export class RunRegistry {
  private readonly runs = new Set<RegisteredRun>();
  private idleWaiters: Array<() => void> = [];

  get size(): number {
    return this.runs.size;
  }

  start(job: AgentRunJob): RunHandle {
    const run: RegisteredRun = { job, controller: new AbortController() };
    this.runs.add(run);
    return {
      job,
      signal: run.controller.signal,
      abortCause: () => causeOf(run.controller.signal),
      finish: () => {
        if (!this.runs.delete(run) || this.runs.size > 0) return;
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const wake of waiters) wake();
      },
    };
  }

  /** Aborts every run of the session; returns how many were running. */
  abortSession(sessionKey: string): number {
    let count = 0;
    for (const run of this.runs) {
      if (run.job.sessionKey !== sessionKey) continue;
      count += 1;
      if (!run.controller.signal.aborted) run.controller.abort(new RunAbortedError("stop"));
    }
    return count;
  }

  abortAll(cause: RunAbortCause): number {
    for (const run of this.runs) {
      if (!run.controller.signal.aborted) run.controller.abort(new RunAbortedError(cause));
    }
    return this.runs.size;
  }

  /** Resolves once no run is registered (at once when none is). */
  whenIdle(): Promise<void> {
    if (this.runs.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}

function causeOf(signal: AbortSignal): RunAbortCause | undefined {
  if (!signal.aborted) return undefined;
  return signal.reason instanceof RunAbortedError ? signal.reason.abortCause : "stop";
}
