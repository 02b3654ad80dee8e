import type { Logger } from "@hermes/agent";
import type { DeliveryRepository } from "@hermes/store";
import type { PlatformAdapter } from "../core/adapter.js";
import type { ActiveDuty } from "./gateway-election.js";

export interface PlatformDutyOptions {
  /** The adapters by platform that delivery and typing read; refilled with fresh ones when duty is taken up again. */
  adapters: Map<string, PlatformAdapter>;
  /** Adapters cannot start again once stopped, so a gateway that stepped down and becomes active again makes new ones. */
  remakeAdapters?: () => Promise<PlatformAdapter[]>;
  recover: () => Promise<void>;
  /** Before delivery starts: frees the delivery claims a predecessor (a crashed or stepped-down gateway) left behind. */
  takeOverClaims?: () => Promise<void>;
  delivery: { start(pollMs?: number): void; stop(): Promise<void> };
  startAdapters: (adapters: readonly PlatformAdapter[]) => Promise<{ settled(waitMs: number): Promise<void> }>;
  /** After the adapters and delivery stopped (e.g. ends typing indicators). */
  afterPutDown?: () => void;
}

export interface PlatformDuty extends ActiveDuty {
  readonly active: boolean;
  /** Stops the adapters if they run (process shutdown), waiting up to 5 s for a start still under way. */
  stopAdapters(): Promise<void>;
}

/** The active gateway's work: recover unfinished messages, deliver replies, hold the platform connections. */
export function createPlatformDuty(options: PlatformDutyOptions): PlatformDuty {
  let active = false;
  let takenBefore = false;
  let started: { settled(waitMs: number): Promise<void> } | undefined;

  const stopAdapters = async (): Promise<void> => {
    if (started === undefined) return;
    const running = started;
    started = undefined;
    await Promise.all([...options.adapters.values()].map((adapter) => adapter.stop().catch(() => undefined)));
    // A start still under way (a slow first connection) must not outlive what it writes to.
    await running.settled(5_000);
  };

  return {
    get active() {
      return active;
    },
    async takeUp() {
      if (takenBefore) {
        if (options.remakeAdapters === undefined) throw new Error("the platform adapters cannot be started a second time");
        const fresh = await options.remakeAdapters();
        options.adapters.clear();
        for (const adapter of fresh) options.adapters.set(adapter.platform, adapter);
      }
      takenBefore = true;
      active = true;
      await options.takeOverClaims?.();
      options.delivery.start(1_000);
      await options.recover();
      started = await options.startAdapters([...options.adapters.values()]);
    },
    async putDown() {
      active = false;
      await stopAdapters();
      await options.delivery.stop();
      options.afterPutDown?.();
    },
    stopAdapters,
  };
}

export interface ClaimTakeoverOptions {
  deliveries: Pick<DeliveryRepository, "releaseClaimsOfOthers">;
  /** The delivery service's claim owner. */
  owner: string;
  platforms: () => readonly string[];
  logger: Logger;
}

/**
 * Only the active gateway sends its platforms' rows, so as it takes over, any other owner's claim on them is a dead or
 * stepped-down gateway's: freed at once rather than left for the lease (a minute). Console rows are left alone, since
 * several terminal chats may share them. A failure only costs the wait.
 */
export function claimTakeover(options: ClaimTakeoverOptions): () => Promise<void> {
  return async () => {
    const platforms = options.platforms().filter((platform) => platform !== "console");
    try {
      const released = await options.deliveries.releaseClaimsOfOthers(options.owner, platforms);
      if (released > 0) options.logger.info("took over deliveries another gateway had claimed", { count: released, platforms });
    } catch (error) {
      options.logger.warn("could not take over other gateways' delivery claims; they are sent when their leases end", { error });
    }
  };
}
