import type { Store } from "@hermes/store";
import type { OutboundTarget } from "./adapter.js";

/**
 * What the gateway core needs from its collaborators, as narrow interfaces so each part is testable on its own and
 * the concrete pieces (store, queue, hooks, pairing, delivery) plug in structurally.
 */
export type GatewayStore = Pick<Store, "sessions" | "messages" | "inbound" | "deliveries" | "usage" | "chatSettings" | "cronJobs">;

export interface RunQueuePort {
  enqueue(job: { inboundId: number; sessionKey: string }): Promise<{ enqueued: boolean }>;
  stop(sessionKey: string): Promise<void>;
}

/** A lifecycle event as the hooks system receives it (see hooks/events.ts for the full list). */
export interface GatewayEvent {
  type: string;
  timestamp: number;
  sessionKey?: string;
  platform?: string;
  chatId?: string;
  userId?: string;
  [field: string]: unknown;
}

export type HookOutcome = { blocked: false } | { blocked: true; reason: string; hook: string };

export interface HookPort {
  emit(event: GatewayEvent): Promise<HookOutcome>;
}

export interface DeliveryPort {
  /** Sends what is pending now (called after enqueueing a notice or when a run finished). */
  flush(): Promise<unknown>;
}

export interface TypingPort {
  begin(key: string, platform: string, target: OutboundTarget): void;
  end(key: string): void;
}
