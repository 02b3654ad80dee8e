import { describe, expect, it } from "vitest";
import { recordingLogger } from "../../../../test/support/recording-logger.js";
import { FailureStreak } from "./failure-streak.js";

describe("FailureStreak", () => {
  it("logs the first failure, a reminder a minute later with the count, the rest at debug, and the recovery once", () => {
    const logger = recordingLogger();
    let now = 0;
    const streak = new FailureStreak(logger, { failed: "could not claim pending deliveries", recovered: "claiming pending deliveries works again", level: "error" }, () => now);
    for (let second = 0; second <= 61; second += 1) {
      now = second * 1_000;
      streak.failed({ error: "database is not currently accepting connections" });
    }
    streak.succeeded();
    streak.succeeded();
    now += 1_000;
    streak.failed({ error: "again" });

    const loud = logger.entries.filter((entry) => entry.level !== "debug").map((entry) => [entry.level, entry.message, entry.fields.failures]);
    expect(loud).toEqual([
      ["error", "could not claim pending deliveries", 1],
      ["error", "could not claim pending deliveries", 61],
      ["info", "claiming pending deliveries works again", 62],
      ["error", "could not claim pending deliveries", 1],
    ]);
    expect(logger.entries.filter((entry) => entry.level === "debug")).toHaveLength(60);
  });

  it("logs a failure with a new cause at once, even within the minute, and the same cause again only as a reminder", () => {
    const logger = recordingLogger();
    let now = 0;
    const streak = new FailureStreak(logger, { failed: "could not claim pending deliveries", recovered: "claiming pending deliveries works again", level: "error" }, () => now);
    streak.failed({ error: new Error("connection refused") });
    now = 1_000;
    streak.failed({ error: new Error("connection refused") });
    now = 2_000;
    streak.failed({ error: new Error('password authentication failed for user "hermes"') });
    now = 3_000;
    streak.failed({ error: new Error("connection refused") });

    const loud = logger.entries.filter((entry) => entry.level !== "debug").map((entry) => [entry.message, entry.fields.failures]);
    expect(loud).toEqual([
      ["could not claim pending deliveries", 1],
      ["could not claim pending deliveries", 3],
    ]);
  });
});
