import { describe, expect, it } from "vitest";
import { nextSlotAfter, parseSchedule } from "./schedule.js";

const NOW = Date.UTC(2026, 0, 5, 10, 7, 30); // a Monday
const MIN = 60_000;

describe("parseSchedule", () => {
  it("reads `in <n><unit>` as one run that far ahead", () => {
    expect(parseSchedule("in 20s", NOW)).toEqual({ ok: true, kind: "once", firstRunAt: NOW + 20_000 });
    expect(parseSchedule("in 30m", NOW)).toEqual({ ok: true, kind: "once", firstRunAt: NOW + 30 * MIN });
    expect(parseSchedule("In 2 hours", NOW)).toEqual({ ok: true, kind: "once", firstRunAt: NOW + 120 * MIN });
    expect(parseSchedule("in 1d", NOW)).toEqual({ ok: true, kind: "once", firstRunAt: NOW + 1_440 * MIN });
  });

  it("reads `every <n><unit>` as an interval starting one interval from now", () => {
    expect(parseSchedule("every 30m", NOW)).toEqual({ ok: true, kind: "every", intervalMs: 30 * MIN, firstRunAt: NOW + 30 * MIN });
    expect(parseSchedule("every  2h", NOW)).toEqual({ ok: true, kind: "every", intervalMs: 120 * MIN, firstRunAt: NOW + 120 * MIN });
  });

  it("reads an ISO 8601 time as one run then, UTC without an offset", () => {
    expect(parseSchedule("2026-01-05T12:00:00Z", NOW)).toEqual({ ok: true, kind: "once", firstRunAt: Date.UTC(2026, 0, 5, 12) });
    expect(parseSchedule("2026-01-05T12:00", NOW)).toEqual({ ok: true, kind: "once", firstRunAt: Date.UTC(2026, 0, 5, 12) });
    expect(parseSchedule("2026-01-05T13:00:00+01:00", NOW)).toEqual({ ok: true, kind: "once", firstRunAt: Date.UTC(2026, 0, 5, 12) });
  });

  it("reads a 5-field cron expression in UTC, first run at its next match", () => {
    expect(parseSchedule("*/15 * * * *", NOW)).toEqual({ ok: true, kind: "cron", expression: "*/15 * * * *", firstRunAt: Date.UTC(2026, 0, 5, 10, 15) });
    expect(parseSchedule("0 9 * * 1-5", NOW)).toMatchObject({ ok: true, kind: "cron", firstRunAt: Date.UTC(2026, 0, 6, 9) });
  });

  it.each([
    ["", "empty"],
    ["tomorrow", "not a schedule"],
    ["every 30s", "too often"],
    ["every 0m", "at least 1"],
    ["in 5 fortnights", "a number and a unit"],
    ["in", "not a schedule"],
    ["in 400d", "more than a year"],
    ["2025-12-31T10:00:00Z", "in the past"],
    ["2026-02-30T10:00:00Z", "not a valid date"],
    ["2026-01-06 10:00", "not an ISO 8601 time"],
    ["61 * * * *", "not a valid cron expression"],
    ["* * * * * *", "not a schedule"],
  ])("refuses %j with a clear error (%s)", (schedule, reason) => {
    const parsed = parseSchedule(schedule, NOW);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(reason);
  });
});

describe("nextSlotAfter", () => {
  it("has none after a one-shot", () => {
    expect(nextSlotAfter({ kind: "once", schedule: "in 5m", nextRunAt: NOW }, NOW)).toBeNull();
  });

  it("moves an interval on by one step when on time, keeping its phase after downtime", () => {
    const slot = NOW;
    expect(nextSlotAfter({ kind: "every", schedule: "every 30m", nextRunAt: slot }, slot)).toBe(slot + 30 * MIN);
    // Down for 100 minutes: the missed slot runs now and the next is the first of the old rhythm after now.
    expect(nextSlotAfter({ kind: "every", schedule: "every 30m", nextRunAt: slot }, slot + 100 * MIN)).toBe(slot + 120 * MIN);
  });

  it("takes a cron expression's next match after now, not the ones missed while down", () => {
    const slot = Date.UTC(2026, 0, 5, 9);
    expect(nextSlotAfter({ kind: "cron", schedule: "0 * * * *", nextRunAt: slot }, slot)).toBe(Date.UTC(2026, 0, 5, 10));
    expect(nextSlotAfter({ kind: "cron", schedule: "0 * * * *", nextRunAt: slot }, Date.UTC(2026, 0, 5, 13, 20))).toBe(Date.UTC(2026, 0, 5, 14));
  });
});
