import type { Logger } from "@hermes/agent";
import type { Store } from "@hermes/store";
import { createCronScheduler } from "./cron-scheduler.js";

/** The gateway process's scheduler: running from start to stop, taking slots only while `isActive` (the platform duty). */
export function startCronScheduling(deps: { store: Store; queue: { enqueue(job: { inboundId: number; sessionKey: string }): Promise<unknown> }; isActive: () => boolean; logger: Logger }): { stop(): Promise<void> } {
  const scheduler = createCronScheduler({ store: deps.store, queue: deps.queue, isActive: deps.isActive, logger: deps.logger.child({ component: "cron" }) });
  scheduler.start();
  return scheduler;
}
