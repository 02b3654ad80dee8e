import { createCronScheduler, type CronSchedulerOptions } from "./cron-scheduler.js";

/** The gateway process's scheduler: running from start to stop, taking slots only while `isActive` (the platform duty). */
export function startCronScheduling(deps: Pick<CronSchedulerOptions, "store" | "queue" | "isActive" | "runsPlatform" | "logger" | "hooks">): { stop(): Promise<void> } {
  const scheduler = createCronScheduler({ ...deps, logger: deps.logger.child({ component: "cron" }) });
  scheduler.start();
  return scheduler;
}
