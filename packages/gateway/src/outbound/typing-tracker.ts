import type { Logger } from "@hermes/agent";
import type { OutboundTarget, PlatformAdapter } from "../core/adapter.js";
import { UNPACED, type SendPacer } from "./pacer-types.js";

export interface TypingTrackerOptions {
  adapters: ReadonlyMap<string, PlatformAdapter>;
  logger: Logger;
  /** How often the indicator is refreshed; platforms drop it after about five seconds (default 4000). */
  intervalMs?: number;
  /** Calls `callback` every `ms` until the returned function is called (default: an unref'd setInterval). */
  repeat?: (callback: () => void, ms: number) => () => void;
  /**
   * Typing shares the platform's send limits with replies and acknowledgements: a refresh is skipped (not queued)
   * when no token is free, since the next one comes within the interval anyway (default: unpaced).
   */
  pacer?: SendPacer;
}

interface Indicator {
  holders: number;
  stop: () => void;
  sending: boolean;
  failureLogged: boolean;
}

const realRepeat = (callback: () => void, ms: number): (() => void) => {
  const timer = setInterval(callback, ms);
  timer.unref();
  return () => clearInterval(timer);
};

/**
 * Keeps "typing…" showing in a chat while work for it is under way. Each key (say, one inbound message) may be begun
 * several times; the indicator stops when every begin has been ended.
 */
export class TypingTracker {
  private readonly indicators = new Map<string, Indicator>();
  private readonly intervalMs: number;
  private readonly repeat: (callback: () => void, ms: number) => () => void;
  private readonly pacer: SendPacer;

  constructor(private readonly options: TypingTrackerOptions) {
    this.intervalMs = Math.max(1, options.intervalMs ?? 4000);
    this.repeat = options.repeat ?? realRepeat;
    this.pacer = options.pacer ?? UNPACED;
  }

  begin(key: string, platform: string, target: OutboundTarget): void {
    const existing = this.indicators.get(key);
    if (existing) {
      existing.holders += 1;
      return;
    }
    const indicator: Indicator = { holders: 1, stop: () => {}, sending: false, failureLogged: false };
    this.indicators.set(key, indicator);
    const adapter = this.options.adapters.get(platform);
    if (!adapter?.sendTyping) return;
    const refresh = (): void => this.refresh(key, indicator, adapter, target);
    refresh();
    indicator.stop = this.repeat(refresh, this.intervalMs);
  }

  end(key: string): void {
    const indicator = this.indicators.get(key);
    if (!indicator) return;
    indicator.holders -= 1;
    if (indicator.holders > 0) return;
    indicator.stop();
    this.indicators.delete(key);
  }

  stopAll(): void {
    for (const indicator of this.indicators.values()) indicator.stop();
    this.indicators.clear();
  }

  isActive(key: string): boolean {
    return this.indicators.has(key);
  }

  private refresh(key: string, indicator: Indicator, adapter: PlatformAdapter, target: OutboundTarget): void {
    // A slow platform must not pile up typing requests behind one another.
    if (indicator.sending || this.indicators.get(key) !== indicator) return;
    if (!this.pacer.tryAcquire(adapter.platform, target.chatId)) return;
    indicator.sending = true;
    const onFailure = (error: unknown): void => {
      if (indicator.failureLogged) return;
      indicator.failureLogged = true;
      this.options.logger.warn("typing indicator failed", { key, platform: adapter.platform, chatId: target.chatId, error });
    };
    let sent: Promise<void>;
    try {
      sent = adapter.sendTyping ? adapter.sendTyping(target) : Promise.resolve();
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.catch(onFailure).finally(() => {
      indicator.sending = false;
    });
  }
}
