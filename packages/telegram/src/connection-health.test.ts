import { describe, expect, it } from "vitest";
import type { AdapterStatus } from "@hermes/gateway";
import { ConnectionHealth } from "./connection-health.js";
import { recordingLogger } from "./recording-logger.js";

function health() {
  const statuses: AdapterStatus[] = [];
  const logger = recordingLogger();
  const lifetime = new AbortController();
  const tracked = new ConnectionHealth({ report: (status) => void statuses.push(status), logger, now: () => 100, random: () => 0.5, signal: lifetime.signal });
  return { tracked, statuses, logger, lifetime };
}

describe("ConnectionHealth", () => {
  it("logs a lasting outage when it starts, every tenth failure and when it ends", () => {
    const { tracked, logger } = health();
    for (let i = 0; i < 20; i += 1) tracked.failed({ kind: "transient", message: "network error: connect ECONNREFUSED" }, "Telegram polling failed");
    tracked.succeeded();
    tracked.succeeded();
    const loud = logger.entries.filter((e) => e.level !== "debug");
    expect(loud.map((e) => [e.level, e.fields.failures ?? null])).toEqual([["warn", 1], ["warn", 10], ["warn", 20], ["info", 20]]);
    expect(loud[0]?.fields).toEqual({ error: "cannot reach Telegram: network error: connect ECONNREFUSED", failures: 1, retryInMs: 1000 });
  });

  it("logs an error whenever the cause changes to one the operator must fix", () => {
    const { tracked, logger, statuses } = health();
    tracked.failed({ kind: "unauthorized", message: "401 Unauthorized" }, "cannot connect to Telegram");
    tracked.failed({ kind: "unauthorized", message: "401 Unauthorized" }, "cannot connect to Telegram");
    tracked.failed({ kind: "conflict", message: "409 Conflict: terminated by other getUpdates request" }, "Telegram polling failed");
    tracked.failed({ kind: "transient", message: "502 Bad Gateway" }, "Telegram polling failed");
    expect(logger.entries.map((e) => e.level)).toEqual(["error", "debug", "error", "warn"]);
    expect(statuses.map((s) => s.error)).toEqual([
      "401 Unauthorized: Telegram refused the bot token; check TELEGRAM_BOT_TOKEN",
      "401 Unauthorized: Telegram refused the bot token; check TELEGRAM_BOT_TOKEN",
      "409 Conflict: another process is polling this bot token or a webhook is set; stop the other instance or delete its webhook (Telegram: terminated by other getUpdates request)",
      "cannot reach Telegram: 502 Bad Gateway",
    ]);
    // Failures in a row back off together, whichever kind they are.
    expect(statuses.map((s) => s.retryAt)).toEqual([1100, 2100, 20100, 8100]);
  });

  it("waits as long as Telegram's retry_after says, but never spins", () => {
    const { tracked } = health();
    expect(tracked.failed({ kind: "rate-limited", retryAfterMs: 7000, message: "429 Too Many Requests: retry after 7" }, "Telegram polling failed")).toBe(7000);
    expect(tracked.failed({ kind: "rate-limited", retryAfterMs: 0, message: "429 Too Many Requests: retry after 0" }, "Telegram polling failed")).toBe(1000);
  });

  it("reports connected once per recovery and nothing at all once the adapter stopped", () => {
    const { tracked, statuses, logger, lifetime } = health();
    tracked.connecting();
    tracked.succeeded();
    tracked.succeeded();
    lifetime.abort();
    tracked.failed({ kind: "transient", message: "network error: aborted" }, "Telegram polling failed");
    tracked.failedForGood("x");
    expect(statuses).toEqual([{ state: "connecting" }, { state: "connected" }]);
    expect(logger.entries).toEqual([]);
  });
});
