import { utcDayOf, type UsageOwner, type UsageRepository } from "@hermes/store";

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** Amounts under a dollar keep four decimals: a cheap model's answers cost fractions of a cent. */
export function formatUsd(usd: number): string {
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** When the day's budget starts afresh, for people: "at 00:00 UTC, in 3 h 25 min". */
export function resetText(now: number): string {
  const left = DAY_MS - (now % DAY_MS);
  const minutes = Math.ceil(left / MINUTE_MS);
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  const span = hours === 0 ? `${rest} min` : rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
  return `at 00:00 UTC, in ${span}`;
}

export type DailyBudgetStatus =
  | { readonly kind: "none"; readonly spentUsd: number }
  | { readonly kind: "within"; readonly spentUsd: number; readonly budgetUsd: number }
  | { readonly kind: "reached"; readonly spentUsd: number; readonly budgetUsd: number };

/** The person's spend so far today (UTC) against HERMES_DAILY_BUDGET_USD. */
export async function dailyBudgetStatus(
  usage: Pick<UsageRepository, "forUserOnDay">,
  owner: UsageOwner,
  budgetUsd: number | undefined,
  now: number,
): Promise<DailyBudgetStatus> {
  const { costUsd: spentUsd } = await usage.forUserOnDay(owner, utcDayOf(now));
  if (budgetUsd === undefined) return { kind: "none", spentUsd };
  return { kind: spentUsd >= budgetUsd ? "reached" : "within", spentUsd, budgetUsd };
}

/** What a person whose budget is used up is told instead of an answer. */
export function budgetReachedReply(status: { spentUsd: number; budgetUsd: number }, now: number): string {
  return `You've reached today's budget (${formatUsd(status.spentUsd)} of ${formatUsd(status.budgetUsd)}), so I can't answer until it resets ${resetText(now)}.`;
}

/** The line /usage shows about today. */
export function todayUsageLine(status: DailyBudgetStatus, now: number): string {
  if (status.kind === "none") return `Today: ${formatUsd(status.spentUsd)} (no daily budget)`;
  const state = status.kind === "reached" ? "reached; resets" : "resets";
  return `Today: ${formatUsd(status.spentUsd)} of ${formatUsd(status.budgetUsd)} (${state} ${resetText(now)})`;
}
