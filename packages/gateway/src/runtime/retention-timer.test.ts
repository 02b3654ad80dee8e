import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { openStore, type RetentionCounts, type RetentionPolicy, type Store } from "@hermes/store";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { recordingLogger } from "../hooks/hook-test-fixtures.js";
import { startRetentionTimer } from "./retention-timer.js";

const DAY_MS = 86_400_000;
const NO_CHANGES: RetentionCounts = { inbound: 0, deliveries: 0, pairingRequests: 0, pairingFailures: 0, sessions: 0, messages: 0 };

let dir: string;
let store: Store;
let clock: number;

beforeEach(async () => {
  // Only the timers are simulated (a day cannot pass in a test); the database is a real file.
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-retention-timer-"));
  clock = 1_700_000_000_000;
  store = await openStore({ file: path.join(dir, "state.db"), now: () => clock });
});
afterEach(async () => {
  vi.useRealTimers();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function answered(messageId: string): Promise<void> {
  await store.inbound.recordIfNew({ platform: "telegram", messageId, payload: "{}", status: "answered" });
}

describe("retention timer", () => {
  it("prunes shortly after start, then once a day, and logs the counts", async () => {
    await answered("old");
    clock += 31 * DAY_MS;
    const logger = recordingLogger();
    const timer = startRetentionTimer({ retention: store.retention, settings: { days: 30 }, logger, now: () => clock, firstDelayMs: 60_000 });

    await vi.advanceTimersByTimeAsync(59_999);
    expect(logger.records).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(logger.records).toEqual([
      { level: "info", message: "retention pruned old records", fields: expect.objectContaining({ inbound: 1, days: 30, historyDays: null }) },
    ]);
    expect(await store.inbound.recent(10)).toEqual([]);

    await answered("next");
    clock += 31 * DAY_MS;
    await vi.advanceTimersByTimeAsync(DAY_MS);
    expect(logger.records.map((record) => record.fields.inbound)).toEqual([1, 1]);
    await timer.stop();
  });

  it("passes the history window on when one is set", async () => {
    const policies: RetentionPolicy[] = [];
    const timer = startRetentionTimer({
      retention: {
        prune: async (policy) => {
          policies.push(policy);
          return NO_CHANGES;
        },
      },
      settings: { days: 7, historyDays: 90 },
      logger: recordingLogger(),
      now: () => clock,
      firstDelayMs: 10,
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(policies).toEqual([{ now: clock, days: 7, historyDays: 90, signal: expect.any(AbortSignal) }]);
    await timer.stop();
  });

  it("logs a failed pruning and tries again the next day", async () => {
    const logger = recordingLogger();
    let calls = 0;
    const timer = startRetentionTimer({
      retention: {
        prune: async () => {
          calls += 1;
          if (calls === 1) throw new Error("database is locked");
          return NO_CHANGES;
        },
      },
      settings: { days: 30 },
      logger,
      firstDelayMs: 10,
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(logger.records).toEqual([
      { level: "error", message: "retention pruning failed; trying again at the next run", fields: { error: expect.objectContaining({ message: "database is locked" }) } },
    ]);
    // The Error itself is logged, so its stack reaches the log file.
    expect(logger.records[0]?.fields?.error).toBeInstanceOf(Error);
    await vi.advanceTimersByTimeAsync(DAY_MS);
    expect(calls).toBe(2);
    expect(logger.records.at(-1)?.level).toBe("info");
    await timer.stop();
  });

  it("never prunes after stop, and stop waits for a pruning under way", async () => {
    let calls = 0;
    let finish: (() => void) | undefined;
    let seen: AbortSignal | undefined;
    const timer = startRetentionTimer({
      retention: {
        prune: (policy) => {
          calls += 1;
          seen = policy.signal;
          return new Promise((resolve) => (finish = () => resolve(NO_CHANGES)));
        },
      },
      settings: { days: 30 },
      logger: recordingLogger(),
      firstDelayMs: 10,
      intervalMs: 10,
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(calls).toBe(1);

    let stopped = false;
    const stopping = timer.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(seen?.aborted).toBe(true);
    expect(stopped).toBe(false);
    finish?.();
    await stopping;
    await vi.advanceTimersByTimeAsync(DAY_MS);
    expect(calls).toBe(1);
  });

  it("does nothing at all when stopped before the first pruning", async () => {
    let calls = 0;
    const prune = async (): Promise<RetentionCounts> => {
      calls += 1;
      return NO_CHANGES;
    };
    const timer = startRetentionTimer({ retention: { prune }, settings: { days: 30 }, logger: recordingLogger() });
    await timer.stop();
    await vi.advanceTimersByTimeAsync(2 * DAY_MS);
    expect(calls).toBe(0);
  });
});
