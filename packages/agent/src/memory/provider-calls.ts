import type { Logger } from "../observability/logger.js";
import type { MemoryProvider } from "./memory-provider.js";

export type Settled<T> = { ok: true; value: T } | { ok: false };

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Calls one provider hook so that its failure stays its own: a throw, a rejection or a hang past `timeoutMs`
 * is logged with the provider's name and reported as `{ ok: false }`; the other providers carry on.
 */
export async function callProvider<T>(
  logger: Logger,
  provider: MemoryProvider,
  hook: string,
  call: () => T | Promise<T>,
  timeoutMs: number,
): Promise<Settled<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
    // A hung plugin must not keep the process alive at shutdown.
    timer.unref?.();
  });
  try {
    const outcome = await Promise.race([Promise.resolve().then(call).then((value) => ({ value })), timedOut]);
    if (outcome === "timeout") {
      logger.warn("memory provider hook timed out", { provider: provider.name, hook, timeoutMs });
      return { ok: false };
    }
    return { ok: true, value: outcome.value };
  } catch (error) {
    logger.warn("memory provider hook failed", { provider: provider.name, hook, error: describe(error) });
    return { ok: false };
  } finally {
    clearTimeout(timer);
  }
}

/** For the fire-and-forget event hooks: a throw is logged, and so is a rejection if a plugin made the hook async. */
export function notifyProvider(logger: Logger, provider: MemoryProvider, hook: string, call: () => unknown): void {
  const report = (error: unknown): void => logger.warn("memory provider hook failed", { provider: provider.name, hook, error: describe(error) });
  try {
    const result = call();
    if (typeof result === "object" && result !== null && typeof (result as { then?: unknown }).then === "function") {
      (result as Promise<unknown>).then(undefined, report);
    }
  } catch (error) {
    report(error);
  }
}
