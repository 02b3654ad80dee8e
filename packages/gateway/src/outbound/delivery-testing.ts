import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { openStore, type NewDelivery, type Store } from "@hermes/store";
import type { PlatformAdapter } from "../core/adapter.js";
import { DeliveryService, type DeliveryServiceOptions } from "./delivery-service.js";
import type { DeliveryOutcome } from "./delivery-types.js";
import { UNPACED, type SendPacer } from "./pacer-types.js";
import { capturingLogger } from "./testing.js";

/** A pacer that lets everything through and records what it was asked. */
export class RecordingPacer implements SendPacer {
  readonly acquired: string[] = [];
  readonly pauses: { platform: string; chatId: string; ms: number }[] = [];

  async acquire(platform: string, chatId: string): Promise<void> {
    this.acquired.push(`${platform}/${chatId}`);
  }

  tryAcquire(platform: string, chatId: string): boolean {
    return UNPACED.tryAcquire(platform, chatId);
  }

  pause(platform: string, chatId: string, ms: number): void {
    this.pauses.push({ platform, chatId, ms });
  }
}

/**
 * Delivery services on real store files in temp folders, all on one manual clock (the store's and the services'),
 * for one test file; `cleanup` in afterEach stops the services and removes everything.
 */
export function deliveryFixtures() {
  const folders: string[] = [];
  const stores: Store[] = [];
  const services: DeliveryService[] = [];
  let clock = 1_700_000_000_000;
  const now = (): number => clock;

  const open = async (file?: string): Promise<{ store: Store; file: string }> => {
    let target = file;
    if (target === undefined) {
      const folder = await mkdtemp(path.join(os.tmpdir(), "hermes-delivery-"));
      folders.push(folder);
      target = path.join(folder, "state.db");
    }
    const store = await openStore({ file: target, now });
    stores.push(store);
    return { store, file: target };
  };

  /** A service on `store` with recorded logs, backoff sleeps and outcomes. */
  const service = (store: Store, adapters: PlatformAdapter[], extra: Partial<DeliveryServiceOptions> = {}) => {
    const { logger, entries } = capturingLogger();
    const sleeps: number[] = [];
    const outcomes: [number, DeliveryOutcome][] = [];
    const created = new DeliveryService({
      store: store.deliveries,
      adapters: new Map(adapters.map((adapter) => [adapter.platform, adapter])),
      logger,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 0.5,
      now,
      onDelivered: (delivery, outcome) => outcomes.push([delivery.id, outcome]),
      ...extra,
    });
    services.push(created);
    return { service: created, entries, sleeps, outcomes };
  };

  return {
    open,
    service,
    now,
    advance(ms: number): void {
      clock += ms;
    },
    /** Writes a pending delivery: a reply to chat "chat-1" of platform "fake" unless told otherwise. */
    add(store: Store, delivery: Partial<NewDelivery> & { text: string }) {
      return store.deliveries.enqueue({ platform: "fake", chatId: "chat-1", kind: "reply", ...delivery });
    },
    async cleanup(): Promise<void> {
      for (const created of services.splice(0)) await created.stop();
      for (const store of stores.splice(0)) await store.close();
      for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
    },
  };
}
