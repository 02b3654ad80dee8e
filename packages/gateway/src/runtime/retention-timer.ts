import type { Logger } from "@hermes/agent";
import type { RetentionCounts, RetentionPolicy } from "@hermes/store";
import type { RetentionSettings } from "../config/gateway-config.js";

export interface RetentionTimerOptions {
  /** The store's retention repository. */
  retention: { prune(policy: RetentionPolicy): Promise<RetentionCounts> };
  settings: RetentionSettings;
  logger: Logger;
  now?: () => number;
  /** Until the first pruning; short, but clear of start-up work (default 1 minute). */
  firstDelayMs?: number;
  /** Between prunings (default 24 hours). */
  intervalMs?: number;
}

export interface RetentionTimer {
  /** Cancels the next pruning and waits for one under way to stop at its next batch. */
  stop(): Promise<void>;
}

const DEFAULT_FIRST_DELAY_MS = 60_000;
const DAY_MS = 86_400_000;

/** Prunes once shortly after start and then daily; a failure is logged and the next day tries again. */
export function startRetentionTimer(options: RetentionTimerOptions): RetentionTimer {
  const { retention, settings, logger } = options;
  const now = options.now ?? Date.now;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const schedule = (delayMs: number): void => {
    if (controller.signal.aborted) return;
    timer = setTimeout(() => {
      running = pruneOnce().finally(() => {
        running = undefined;
        schedule(options.intervalMs ?? DAY_MS);
      });
    }, delayMs);
    // Pruning is housekeeping: it must never keep a process alive that has nothing else to do.
    timer.unref();
  };

  const pruneOnce = async (): Promise<void> => {
    const started = now();
    try {
      const counts = await retention.prune({
        now: started,
        days: settings.days,
        ...(settings.historyDays !== undefined && { historyDays: settings.historyDays }),
        signal: controller.signal,
      });
      logger.info("retention pruned old records", { ...counts, days: settings.days, historyDays: settings.historyDays ?? null, durationMs: now() - started });
    } catch (error) {
      logger.error("retention pruning failed; trying again at the next run", { error });
    }
  };

  schedule(options.firstDelayMs ?? DEFAULT_FIRST_DELAY_MS);

  return {
    async stop() {
      controller.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
