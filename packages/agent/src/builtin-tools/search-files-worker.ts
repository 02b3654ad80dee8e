import { parentPort, workerData } from "node:worker_threads";
import { errorCode } from "./fs-errors.js";
import { scanFiles, type SearchJob, type SearchOutcome } from "./search-files-scan.js";

/** Messages from the search worker to the thread that started it. */
export type SearchWorkerMessage =
  | { kind: "progress"; newHits: string[]; filesScanned: number }
  | { kind: "done"; outcome: SearchOutcome }
  | { kind: "failed"; code?: string; message: string };

function isSearchJob(value: unknown): value is SearchJob {
  if (typeof value !== "object" || value === null) return false;
  const job = value as Record<string, unknown>;
  return (
    typeof job.folder === "string" &&
    typeof job.folderDisplay === "string" &&
    typeof job.patternSource === "string" &&
    typeof job.patternFlags === "string" &&
    (job.target === "content" || job.target === "files") &&
    (job.glob === undefined || typeof job.glob === "string") &&
    typeof job.maxResults === "number"
  );
}

async function serve(port: NonNullable<typeof parentPort>, job: unknown): Promise<void> {
  const send = (message: SearchWorkerMessage): void => port.postMessage(message);
  if (!isSearchJob(job)) {
    send({ kind: "failed", message: "search worker started without a valid job" });
    return;
  }
  try {
    const outcome = await scanFiles(job, (progress) => send({ kind: "progress", ...progress }));
    send({ kind: "done", outcome });
  } catch (error) {
    const code = errorCode(error);
    const message = error instanceof Error ? error.message : String(error);
    send(code === undefined ? { kind: "failed", message } : { kind: "failed", code, message });
  }
}

// Loaded on the main thread by mistake, the module must not start scanning there.
if (parentPort !== null) await serve(parentPort, workerData);
