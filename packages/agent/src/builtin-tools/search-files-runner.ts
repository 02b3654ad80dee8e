import { Worker } from "node:worker_threads";
import type { SearchJob, SearchOutcome } from "./search-files-scan.js";
import type { SearchWorkerMessage } from "./search-files-worker.js";

/** How a worker-run search ended. `failed` carries the errno code of an unreadable searched folder. */
export type SearchRun =
  | { kind: "done"; outcome: SearchOutcome }
  | { kind: "stopped"; why: "time-limit" | "aborted"; hits: string[]; filesScanned: number }
  | { kind: "failed"; code: string };

export interface SearchRunOptions {
  signal: AbortSignal;
  /** The search is stopped after this long even when the caller sets no deadline. */
  timeLimitMs: number;
  /** Starts the worker; defaults to startSearchWorker. Lets tests watch the thread's lifetime. */
  startWorker?: (job: SearchJob) => Worker;
}

/**
 * Runs a search in a worker thread, so a regular expression that backtracks for minutes blocks only that thread,
 * which is terminated when `signal` aborts or the time limit passes. Resolves only after the worker has exited.
 * A worker that crashes or breaks the protocol is a bug and rejects.
 */
export async function runSearchInWorker(job: SearchJob, options: SearchRunOptions): Promise<SearchRun> {
  const worker = (options.startWorker ?? startSearchWorker)(job);
  const partial = { hits: [] as string[], filesScanned: 0 };
  return await new Promise<SearchRun>((resolve, reject) => {
    let ended = false;
    const end = (settle: () => void): void => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      // Waiting for the exit means no search thread outlives the call that started it.
      worker.terminate().then(settle, settle);
    };
    const stop = (why: "time-limit" | "aborted"): void =>
      end(() => resolve({ kind: "stopped", why, hits: partial.hits, filesScanned: partial.filesScanned }));
    const onAbort = (): void => stop("aborted");
    const timer = setTimeout(() => stop("time-limit"), options.timeLimitMs);
    options.signal.addEventListener("abort", onAbort, { once: true });
    if (options.signal.aborted) onAbort();

    worker.on("message", (message: SearchWorkerMessage) => {
      switch (message.kind) {
        case "progress":
          partial.hits.push(...message.newHits);
          partial.filesScanned = message.filesScanned;
          return;
        case "done":
          end(() => resolve({ kind: "done", outcome: message.outcome }));
          return;
        case "failed": {
          const code = message.code;
          end(() => (code === undefined ? reject(new Error(message.message)) : resolve({ kind: "failed", code })));
          return;
        }
      }
    });
    worker.on("error", (error: Error) => end(() => reject(error)));
    worker.on("exit", (exitCode: number) =>
      end(() => reject(new Error(`search worker exited with code ${exitCode} before reporting a result`))),
    );
  });
}

/**
 * Under tsx or vitest this module is TypeScript, which a bare worker cannot load (the parent's loader hooks do
 * not reach a worker's entry module), so the worker first registers tsx and then imports the entry.
 */
export function startSearchWorker(job: SearchJob): Worker {
  const isTypeScript = import.meta.url.endsWith(".ts");
  const entry = new URL(`./search-files-worker.${isTypeScript ? "ts" : "js"}`, import.meta.url);
  if (!isTypeScript) return new Worker(entry, { workerData: job });
  const loader = import.meta.resolve("tsx/esm/api");
  const bootstrap =
    `import(${JSON.stringify(loader)})` +
    `.then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: job });
}
