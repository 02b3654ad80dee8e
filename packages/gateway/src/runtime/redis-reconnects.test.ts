import type { InboundRecord, InboundStatus } from "@hermes/store";
import { describe, expect, it } from "vitest";
import { recordingLogger, type LogRecord } from "../hooks/hook-test-fixtures.js";
import { resumeOpenRuns } from "./redis-reconnects.js";

const record = (id: number, status: InboundStatus, platform = "telegram"): InboundRecord => ({
  id,
  platform,
  messageId: `m${id}`,
  sessionKey: `agent:main:${platform}:dm:${id}`,
  status,
  payload: "{}",
  receivedAt: 0,
  updatedAt: 0,
});

describe("resumeOpenRuns (after Redis answers again)", () => {
  it("enqueues again the queued and running messages of the platforms this process runs, nothing else", async () => {
    const resumed: number[] = [];
    await resumeOpenRuns({
      unfinished: async () => [record(1, "received"), record(2, "queued"), record(3, "running"), record(4, "queued", "console")],
      runsPlatform: (platform) => platform === "telegram",
      resume: async (records) => void resumed.push(...records.map((r) => r.id)),
      logger: recordingLogger(),
    });
    expect(resumed).toEqual([2, 3]);
  });

  it("logs a failure instead of throwing (it runs from a connection event)", async () => {
    const records: LogRecord[] = [];
    await resumeOpenRuns({
      unfinished: async () => [record(2, "queued")],
      runsPlatform: () => true,
      resume: async () => {
        throw new Error("database is locked");
      },
      logger: recordingLogger(records),
    });
    expect(records).toContainEqual(expect.objectContaining({ level: "error", message: "could not enqueue open messages again after redis came back" }));
  });
});
