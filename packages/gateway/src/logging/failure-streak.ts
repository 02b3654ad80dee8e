import type { Logger } from "@hermes/agent";

/** While an operation keeps failing, it is logged at its level at most this often (with the count since the first). */
const REMIND_EVERY_MS = 60_000;
/** Causes of one streak logged at its level when first seen; beyond these, a cause waits for the next reminder. */
const MAX_CAUSES_PER_STREAK = 5;

/**
 * The log of an operation repeated every second or so (claiming deliveries, reading the scheduled tasks): its first
 * failure at `level`, then a reminder once a minute with the number of failures so far (the ones between go to
 * debug), and one info line when it works again. A database outage would otherwise write the same error every
 * second, burying every other line the operator needs. A failure with a cause not seen yet in the streak is logged at
 * its level at once: a database that comes back refusing the gateway's password must not hide for a minute.
 */
export class FailureStreak {
  private failures = 0;
  private lastLoggedAt = 0;
  private readonly causes = new Set<string>();

  constructor(
    private readonly logger: Logger,
    private readonly messages: { failed: string; recovered: string; level: "warn" | "error" },
    private readonly now: () => number = Date.now,
  ) {}

  failed(fields: Record<string, unknown>): void {
    this.failures += 1;
    const at = this.now();
    const cause = causeOf(fields.error);
    const newCause = !this.causes.has(cause) && this.causes.size < MAX_CAUSES_PER_STREAK;
    this.causes.add(cause);
    if (this.failures > 1 && !newCause && at - this.lastLoggedAt < REMIND_EVERY_MS) {
      this.logger.debug(this.messages.failed, { ...fields, failures: this.failures });
      return;
    }
    this.lastLoggedAt = at;
    this.logger[this.messages.level](this.messages.failed, { ...fields, failures: this.failures });
  }

  succeeded(): void {
    if (this.failures === 0) return;
    this.logger.info(this.messages.recovered, { failures: this.failures });
    this.failures = 0;
    this.causes.clear();
  }
}

function causeOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
