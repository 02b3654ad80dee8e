import { Cron } from "croner";

export type ScheduleKind = "cron" | "every" | "once";

/** A schedule as understood: what kind it is and its first slot (epoch ms). */
export type ParsedSchedule =
  | { ok: true; kind: "cron"; expression: string; firstRunAt: number }
  | { ok: true; kind: "every"; intervalMs: number; firstRunAt: number }
  | { ok: true; kind: "once"; firstRunAt: number }
  | { ok: false; error: string };

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const UNIT_WORDS: Record<string, string> = {
  s: "s", sec: "s", secs: "s", second: "s", seconds: "s",
  m: "m", min: "m", mins: "m", minute: "m", minutes: "m",
  h: "h", hr: "h", hrs: "h", hour: "h", hours: "h",
  d: "d", day: "d", days: "d",
};
const MIN_INTERVAL_MS = 60_000;
/** Farther than this is more likely a typo than a plan, and keeps the numbers far from overflow. */
const MAX_AHEAD_MS = 366 * 86_400_000;
const DURATION = /^(\d{1,6})\s*([a-z]+)$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:?\d{2})?$/i;

export const SCHEDULE_FORMS = "a 5-field cron expression (UTC, e.g. `0 9 * * 1-5`), `every <n><s|m|h|d>` (at least 1 minute, e.g. `every 30m`), `in <n><s|m|h|d>` (once, e.g. `in 20s`) or an ISO 8601 time (once, e.g. `2026-05-01T09:00:00Z`)";

/** Reads a schedule as people write it; `now` is when it is created. Anything else is a clear error value. */
export function parseSchedule(text: string, now: number): ParsedSchedule {
  const schedule = text.trim().replace(/\s+/g, " ");
  if (schedule === "") return { ok: false, error: `The schedule is empty. Use ${SCHEDULE_FORMS}.` };
  const lower = schedule.toLowerCase();
  if (lower.startsWith("every ")) return parseEvery(lower.slice(6), schedule, now);
  if (lower.startsWith("in ")) {
    const delay = durationMs(lower.slice(3));
    if (!delay.ok) return { ok: false, error: `"${schedule}": ${delay.error}` };
    if (delay.ms > MAX_AHEAD_MS) return { ok: false, error: `"${schedule}" is more than a year ahead.` };
    return { ok: true, kind: "once", firstRunAt: now + delay.ms };
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(schedule)) return parseIsoTime(schedule, now);
  return parseCron(schedule, now);
}

function parseEvery(rest: string, schedule: string, now: number): ParsedSchedule {
  const interval = durationMs(rest);
  if (!interval.ok) return { ok: false, error: `"${schedule}": ${interval.error}` };
  if (interval.ms < MIN_INTERVAL_MS) return { ok: false, error: `"${schedule}" is too often: the shortest interval is 1 minute.` };
  if (interval.ms > MAX_AHEAD_MS) return { ok: false, error: `"${schedule}" is longer than a year.` };
  return { ok: true, kind: "every", intervalMs: interval.ms, firstRunAt: now + interval.ms };
}

function parseIsoTime(schedule: string, now: number): ParsedSchedule {
  if (!ISO_TIME.test(schedule)) return { ok: false, error: `"${schedule}" is not an ISO 8601 time such as 2026-05-01T09:00:00Z.` };
  // Without an offset the time is UTC, like the cron expressions (JavaScript would read it as local time).
  const at = Date.parse(/(?:Z|[+-]\d{2}:?\d{2})$/i.test(schedule) ? schedule : `${schedule}Z`);
  if (Number.isNaN(at) || !realCalendarDay(schedule)) return { ok: false, error: `"${schedule}" is not a valid date and time.` };
  if (at <= now) return { ok: false, error: `"${schedule}" is in the past.` };
  if (at - now > MAX_AHEAD_MS) return { ok: false, error: `"${schedule}" is more than a year ahead.` };
  return { ok: true, kind: "once", firstRunAt: at };
}

/** Date.parse rolls 2026-02-30 over into March; a date that does not exist is a typo. */
function realCalendarDay(schedule: string): boolean {
  const [year, month, day] = schedule.slice(0, 10).split("-").map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function parseCron(schedule: string, now: number): ParsedSchedule {
  if (schedule.split(" ").length !== 5) return { ok: false, error: `"${schedule}" is not a schedule. Use ${SCHEDULE_FORMS}.` };
  let next: number | undefined;
  try {
    next = nextCronSlot(schedule, now);
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, "") : String(error);
    return { ok: false, error: `"${schedule}" is not a valid cron expression (${reason}).` };
  }
  if (next === undefined) return { ok: false, error: `"${schedule}" never runs.` };
  return { ok: true, kind: "cron", expression: schedule, firstRunAt: next };
}

function durationMs(text: string): { ok: true; ms: number } | { ok: false; error: string } {
  const match = DURATION.exec(text.trim());
  const unit = match ? UNIT_WORDS[match[2] ?? ""] : undefined;
  if (!match || unit === undefined) return { ok: false, error: "expected a number and a unit: s, m, h or d (e.g. 20s, 30m, 2h, 1d)." };
  const count = Number(match[1]);
  if (count === 0) return { ok: false, error: "the number must be at least 1." };
  return { ok: true, ms: count * (UNIT_MS[unit] ?? 0) };
}

/** The first slot of a 5-field UTC cron expression strictly after `after`; throws on an invalid expression. */
function nextCronSlot(expression: string, after: number): number | undefined {
  const cron = new Cron(expression, { timezone: "UTC", mode: "5-part" });
  return cron.nextRun(new Date(after))?.getTime();
}

/**
 * The slot after one that was just taken at `now`: a missed slot runs once, then the schedule goes on from now (an
 * interval keeps its phase). Null for a one-shot, or a schedule that no longer reads (it then stops).
 */
export function nextSlotAfter(job: { kind: ScheduleKind; schedule: string; nextRunAt: number | null }, now: number): number | null {
  if (job.kind === "once" || job.nextRunAt === null) return null;
  if (job.kind === "every") {
    const parsed = parseSchedule(job.schedule, now);
    if (!parsed.ok || parsed.kind !== "every") return null;
    const behind = Math.floor(Math.max(0, now - job.nextRunAt) / parsed.intervalMs) + 1;
    return job.nextRunAt + behind * parsed.intervalMs;
  }
  try {
    return nextCronSlot(job.schedule.trim().replace(/\s+/g, " "), Math.max(now, job.nextRunAt)) ?? null;
  } catch {
    return null;
  }
}
