import type { Logger } from "@hermes/agent";
import type { AdapterContext, AdapterStatus, PlatformAdapter } from "../core/adapter.js";
import type { PlatformHealth } from "./platform-health.js";

/** How long start-up waits for the adapters' first connection before the gateway serves without them. */
export const ADAPTER_START_WAIT_MS = 5_000;

export interface AdapterStartDeps {
  context: () => Omit<AdapterContext, "reportStatus">;
  health: PlatformHealth;
  logger: Logger;
  waitMs?: number;
}

/**
 * Starts every adapter at once, each reporting its connection to `health`, and waits at most `waitMs` for them: one
 * slow or hanging platform neither delays the others nor the gateway. A start that throws is shown as `failed` with
 * its cause. An adapter that never reports but whose start succeeds counts as connected, since it says nothing else.
 * `settled(ms)` waits up to `ms` for every start to finish (stop uses it).
 */
export async function startAdapters(adapters: readonly PlatformAdapter[], deps: AdapterStartDeps): Promise<{ settled(waitMs: number): Promise<void> }> {
  const all = Promise.all(adapters.map((adapter) => startOne(adapter, deps))).then(() => undefined);
  await atMost(all, deps.waitMs ?? ADAPTER_START_WAIT_MS);
  return { settled: (waitMs) => atMost(all, waitMs) };
}

async function atMost(work: Promise<void>, waitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, waitMs);
  });
  await Promise.race([work, waited]);
  clearTimeout(timer);
}

async function startOne(adapter: PlatformAdapter, deps: AdapterStartDeps): Promise<void> {
  const platform = adapter.platform;
  let reported = false;
  const reportStatus = (status: AdapterStatus): void => {
    reported = true;
    deps.health.report(platform, status);
  };
  try {
    await adapter.start({ ...deps.context(), reportStatus });
    if (!reported) deps.health.report(platform, { state: "connected" });
    deps.logger.info("platform adapter started", { platform });
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    deps.logger.error("platform adapter failed to start", { platform, error });
    deps.health.report(platform, { state: "failed", error: cause });
  }
}
