export interface ThrashGuardOptions {
  /** A compression saving less than this share of the tokens counts as ineffective. */
  minSavingsRatio?: number;
  /** Consecutive ineffective compressions after which proactive compression stops. */
  maxIneffective?: number;
  /** Growth (in tokens) past the size at which compression stopped that makes it worth trying again. */
  regrowTokens: number;
}

export const THRASHING_MESSAGE = "The conversation is too long to compress further; start a new one with /new.";

/**
 * Anti-thrash of seed 000 §7.2 / seed 003: near the threshold, compressions that barely help would otherwise run on
 * every step, each costing a model call. After `maxIneffective` of them in a row proactive compression stops until
 * the conversation has grown enough to give a new one something to work with, or until reset.
 */
export class ThrashGuard {
  private readonly minSavingsRatio: number;
  private readonly maxIneffective: number;
  private readonly regrowTokens: number;
  private ineffectiveStreak = 0;
  private blockedAtTokens: number | undefined;
  private overflowTriedWhileBlocked = false;

  constructor(options: ThrashGuardOptions) {
    this.minSavingsRatio = options.minSavingsRatio ?? 0.1;
    this.maxIneffective = options.maxIneffective ?? 2;
    this.regrowTokens = options.regrowTokens;
  }

  get thrashing(): boolean {
    return this.blockedAtTokens !== undefined;
  }

  /**
   * Whether a proactive compression may run at this size. Growing past the margin re-arms the guard, with one
   * ineffective compression already counted so a single further failure stops it again.
   */
  permitsProactive(currentTokens: number): boolean {
    if (this.blockedAtTokens === undefined) return true;
    if (currentTokens < this.blockedAtTokens + this.regrowTokens) return false;
    this.blockedAtTokens = undefined;
    this.overflowTriedWhileBlocked = false;
    this.ineffectiveStreak = this.maxIneffective - 1;
    return true;
  }

  /** An overflow leaves no choice but to try; while thrashing it is tried once, not on every retry of the call. */
  permitsOverflow(): boolean {
    if (this.blockedAtTokens === undefined) return true;
    if (this.overflowTriedWhileBlocked) return false;
    this.overflowTriedWhileBlocked = true;
    return true;
  }

  record(tokensBefore: number, tokensAfter: number): { effective: boolean } {
    const saved = tokensBefore > 0 ? (tokensBefore - tokensAfter) / tokensBefore : 0;
    if (saved >= this.minSavingsRatio) {
      this.ineffectiveStreak = 0;
      this.blockedAtTokens = undefined;
      this.overflowTriedWhileBlocked = false;
      return { effective: true };
    }
    this.ineffectiveStreak += 1;
    if (this.ineffectiveStreak >= this.maxIneffective && this.blockedAtTokens === undefined) {
      this.blockedAtTokens = Math.min(tokensBefore, tokensAfter);
    }
    return { effective: false };
  }

  reset(): void {
    this.ineffectiveStreak = 0;
    this.blockedAtTokens = undefined;
    this.overflowTriedWhileBlocked = false;
  }
}
