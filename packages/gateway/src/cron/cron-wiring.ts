import type { Store } from "@hermes/store";
import { isAllowlisted, type AllowedUsersLike } from "../auth/allowlist.js";
import { dailyBudgetStatus } from "../core/daily-budget.js";
import { createCronScheduler, type CronSchedulerOptions } from "./cron-scheduler.js";

type CronWiringDeps = Pick<CronSchedulerOptions, "queue" | "isActive" | "platforms" | "logger" | "hooks"> & {
  store: CronSchedulerOptions["store"] & Pick<Store, "pairing" | "usage">;
  /** HERMES_ALLOWED_USERS: with the pairing approvals, who may still have their jobs run. */
  allowedUsers: AllowedUsersLike;
  /** HERMES_DAILY_BUDGET_USD, when set. */
  dailyBudgetUsd?: number;
};

/** The gateway process's scheduler: running from start to stop, taking slots only while `isActive` (the platform duty). */
export function startCronScheduling(deps: CronWiringDeps): { stop(): Promise<void> } {
  const { store, allowedUsers, dailyBudgetUsd: budget } = deps;
  const scheduler = createCronScheduler({
    ...deps,
    logger: deps.logger.child({ component: "cron" }),
    // A revoked creator's jobs stop running; the console belongs to whoever runs the process.
    creatorAllowed: async (platform, userId) => platform === "console" || isAllowlisted(allowedUsers, platform, userId) || (await store.pairing.isApproved(platform, userId)),
    overBudget: budget === undefined ? undefined : async (platform, userId, now) => (await dailyBudgetStatus(store.usage, { platform, userId }, budget, now)).kind === "reached",
  });
  scheduler.start();
  return scheduler;
}
