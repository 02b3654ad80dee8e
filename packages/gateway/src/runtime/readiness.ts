import type { WritableCheck } from "@hermes/store";
import type { PlatformHealth } from "./platform-health.js";

/** One part of readiness: a platform connection, the store, Redis, the model settings. */
export interface CheckResult {
  ok: boolean;
  detail: string;
}

export type ReadinessCheck = () => Promise<CheckResult>;

export interface ReadinessReport {
  status: "ready" | "unready";
  checks: Record<string, CheckResult>;
  [detail: string]: unknown;
}

/** Long enough for a PING on a healthy loopback or LAN, short enough for a load balancer's probe. */
export const CHECK_TIMEOUT_MS = 2_000;

/** Runs every check at once, each bounded by `timeoutMs`; ready only when all pass. A check that throws fails. */
export async function runReadinessChecks(checks: Record<string, ReadinessCheck>, timeoutMs = CHECK_TIMEOUT_MS): Promise<ReadinessReport> {
  const names = Object.keys(checks);
  const results = await Promise.all(names.map((name) => bounded(checks[name], timeoutMs)));
  const report = Object.fromEntries(names.map((name, index) => [name, results[index] ?? { ok: false, detail: "no result" }]));
  return { status: results.every((result) => result.ok) ? "ready" : "unready", checks: report };
}

/** A stopping process is unready whatever its parts say, so a load balancer moves traffic away while it drains. */
export function unreadyWhileStopping(report: ReadinessReport, stopping: boolean): ReadinessReport {
  if (!stopping) return report;
  return { ...report, status: "unready", checks: { ...report.checks, process: { ok: false, detail: "stopping" } } };
}

/** Ready while the adapter reports `connected`; otherwise its state and last error, e.g. "retrying: 401 Unauthorized". */
export function platformCheck(health: PlatformHealth, platform: string): ReadinessCheck {
  return async () => {
    const entry = health.get(platform);
    if (entry === undefined) return { ok: false, detail: "not started" };
    if (entry.state === "connected") return { ok: true, detail: "connected" };
    return { ok: false, detail: entry.lastError === null ? entry.state : `${entry.state}: ${entry.lastError}` };
  };
}

export function storeCheck(store: { checkWritable(): Promise<WritableCheck> }): ReadinessCheck {
  return async () => {
    const result = await store.checkWritable();
    return result.ok ? { ok: true, detail: "writable" } : { ok: false, detail: `not writable: ${result.error}` };
  };
}

/**
 * Whether the store takes writes within `timeoutMs`: a slow answer counts as no (the store check, bounded as
 * /readyz bounds it; for `hermes_store_up` and the run queues' wait while the database is away).
 */
export async function storeTakesWrites(store: { checkWritable(): Promise<WritableCheck> }, timeoutMs: number): Promise<boolean> {
  return (await runReadinessChecks({ store: storeCheck(store) }, timeoutMs)).status === "ready";
}

async function bounded(check: ReadinessCheck | undefined, timeoutMs: number): Promise<CheckResult> {
  if (check === undefined) return { ok: false, detail: "no check" };
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${timeoutMs} ms` }), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([Promise.resolve().then(check), timedOut]);
  } catch (error) {
    return { ok: false, detail: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
