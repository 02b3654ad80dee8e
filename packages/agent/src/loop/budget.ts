import { withDefaults } from "../defaults.js";

/**
 * Separate limits for separate kinds of work (seed 002 §2.2): a provider retry must not eat the step budget, and a
 * tool the model keeps re-calling with the same failing arguments gets its own cap.
 */
export interface LoopBudget {
  /** LLM calls that may produce tool calls; one step = one model response plus its tool executions. */
  maxSteps: number;
  maxWallTimeMs: number;
  /** Attempts for one model call on one model, counting retries (the fallback model, if switched to, gets as many). */
  maxModelAttempts: number;
  /** How often the model may repeat an identical call (same tool, same arguments) after it failed. */
  maxToolRetriesPerCall: number;
  /** Context compressions within one run. */
  maxCompactions: number;
}

export const DEFAULT_LOOP_BUDGET: LoopBudget = {
  maxSteps: 50,
  maxWallTimeMs: 15 * 60_000,
  maxModelAttempts: 4,
  maxToolRetriesPerCall: 2,
  maxCompactions: 3,
};

/** The grace summary after the time ran out is bounded too, so a run never overshoots its budget by much. */
const TIME_GRACE_CAP_MS = 30_000;
const TIME_GRACE_SHARE = 0.1;

export class BudgetTracker {
  readonly limits: LoopBudget;
  private stepsUsed = 0;
  private compactionsUsed = 0;
  private readonly startedAt: number;
  private readonly failedCalls = new Map<string, number>();

  constructor(limits: Partial<LoopBudget> | undefined, private readonly now: () => number) {
    this.limits = withDefaults(DEFAULT_LOOP_BUDGET, limits);
    this.startedAt = now();
  }

  get steps(): number {
    return this.stepsUsed;
  }

  stepsExhausted(): boolean {
    return this.stepsUsed >= this.limits.maxSteps;
  }

  consumeStep(): number {
    this.stepsUsed += 1;
    return this.stepsUsed;
  }

  elapsedMs(): number {
    return this.now() - this.startedAt;
  }

  wallTimeExceeded(): boolean {
    return this.elapsedMs() >= this.limits.maxWallTimeMs;
  }

  /** How long the summary call written after the wall-time budget ran out may take: min(30 s, a tenth of the budget). */
  timeGraceMs(): number {
    return Math.min(TIME_GRACE_CAP_MS, Math.round(this.limits.maxWallTimeMs * TIME_GRACE_SHARE));
  }

  tryConsumeCompaction(): boolean {
    if (this.compactionsUsed >= this.limits.maxCompactions) return false;
    this.compactionsUsed += 1;
    return true;
  }

  /** Number of earlier failures of this exact call (tool name + canonical arguments). */
  failuresOf(callKey: string): number {
    return this.failedCalls.get(callKey) ?? 0;
  }

  recordFailure(callKey: string): void {
    this.failedCalls.set(callKey, this.failuresOf(callKey) + 1);
  }
}
