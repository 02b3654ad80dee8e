import type { Logger } from "@hermes/agent";

/** While an operation keeps failing, it is logged at its level at most this often (with the count since the first). */
const REMIND_EVERY_MS = 60_000;

/**
 * The log of an operation repeated every second or so (claiming deliveries, reading the scheduled tasks): its first
 * failure at `level`, then a reminder once a minute with the number of failures so far (the ones between go to
 * debug), and one info line when it works again. A database outage would otherwise write the same error every
 * second, burying every other line the operator needs.
 */
export class FailureStreak {
  private failures = 0;
  private lastLoggedAt = 0;

  constructor(
    private readonly logger: Logger,
    private readonly messages: { failed: string; recovered: string; level: "warn" | "error" },
    private readonly now: () => number = Date.now,
  ) {}

  failed(fields: Record<string, unknown>): void {
    this.failures += 1;
    const at = this.now();
    if (this.failures > 1 && at - this.lastLoggedAt < REMIND_EVERY_MS) {
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
  }
}
