import type { Store } from "@hermes/store";
import { isAllowlisted, type AllowedUsersLike } from "../auth/allowlist.js";
import { createCronScheduler, type CronSchedulerOptions } from "./cron-scheduler.js";

type CronWiringDeps = Pick<CronSchedulerOptions, "queue" | "isActive" | "platforms" | "logger" | "hooks"> & {
  store: CronSchedulerOptions["store"] & Pick<Store, "pairing">;
  /** HERMES_ALLOWED_USERS: with the pairing approvals, who may still have their jobs run. */
  allowedUsers: AllowedUsersLike;
};

/** The gateway process's scheduler: running from start to stop, taking slots only while `isActive` (the platform duty). */
export function startCronScheduling(deps: CronWiringDeps): { stop(): Promise<void> } {
  const { store, allowedUsers } = deps;
  const scheduler = createCronScheduler({
    ...deps,
    logger: deps.logger.child({ component: "cron" }),
    // A revoked creator's jobs stop running; the console belongs to whoever runs the process.
    creatorAllowed: async (platform, userId) => platform === "console" || isAllowlisted(allowedUsers, platform, userId) || (await store.pairing.isApproved(platform, userId)),
  });
  scheduler.start();
  return scheduler;
}
