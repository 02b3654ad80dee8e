import type { PacingRules } from "../core/adapter.js";
import { realPacerClock, type PacerClock } from "./pacer-clock.js";
import type { SendPacer } from "./pacer-types.js";
import { PlatformLanes } from "./platform-lanes.js";

export interface PlatformPacerOptions {
  /** Each platform's published limits, usually the adapters themselves; a platform without `pacing` is only paused. */
  platforms: Iterable<{ readonly platform: string; readonly pacing?: PacingRules }>;
  clock?: PacerClock;
  /** How often (clock ms, default 60 000) idle chats' buckets and run-out pauses are dropped, so memory stays bounded. */
  sweepEveryMs?: number;
  /**
   * How much later than let go a send may reach the platform (default 250 ms): the platform counts arrivals, and a
   * burst's first request (a new connection, a busy event loop) can land late while the next lands on time. Each
   * bucket keeps that much refill in reserve, so a burst is a little shorter and the steady rate is unchanged.
   */
  jitterMs?: number;
}

const DEFAULT_SWEEP_EVERY_MS = 60_000;
const DEFAULT_JITTER_MS = 250;

/**
 * Paces every send, busy acknowledgement and typing action to its platform's published limits (token buckets per
 * chat, per group and per bot), and holds a chat (or a whole platform) back while the platform asked to wait.
 */
export class PlatformPacer implements SendPacer {
  private readonly platforms = new Map<string, PlatformLanes>();
  private readonly rules = new Map<string, PacingRules>();
  private readonly clock: PacerClock;
  private readonly sweepEveryMs: number;
  private readonly jitterMs: number;
  private sweptAt: number;

  constructor(options: PlatformPacerOptions) {
    for (const { platform, pacing } of options.platforms) if (pacing) this.rules.set(platform, pacing);
    this.clock = options.clock ?? realPacerClock;
    this.sweepEveryMs = options.sweepEveryMs ?? DEFAULT_SWEEP_EVERY_MS;
    this.jitterMs = Math.max(0, options.jitterMs ?? DEFAULT_JITTER_MS);
    this.sweptAt = this.clock.now();
  }

  acquire(platform: string, chatId: string, signal?: AbortSignal): Promise<void> {
    return this.lanesOf(platform).acquire(chatId, signal);
  }

  tryAcquire(platform: string, chatId: string): boolean {
    return this.lanesOf(platform).tryAcquire(chatId);
  }

  pause(platform: string, chatId: string, ms: number): void {
    this.lanesOf(platform).pause(chatId, ms);
  }

  /** How many chats of `platform` have pacing state (buckets, pauses or waiting sends) right now. */
  trackedChats(platform: string): number {
    return this.platforms.get(platform)?.trackedChats() ?? 0;
  }

  private lanesOf(platform: string): PlatformLanes {
    this.sweepWhenDue();
    let lanes = this.platforms.get(platform);
    if (!lanes) {
      lanes = new PlatformLanes(this.rules.get(platform) ?? {}, this.clock, this.jitterMs);
      this.platforms.set(platform, lanes);
    }
    return lanes;
  }

  private sweepWhenDue(): void {
    const now = this.clock.now();
    if (now - this.sweptAt < this.sweepEveryMs) return;
    this.sweptAt = now;
    for (const lanes of this.platforms.values()) lanes.sweep();
  }
}
