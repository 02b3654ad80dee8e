import { createMetricsRegistry } from "@hermes/agent";
import type { InboundRecord, Store } from "@hermes/store";
import { describe, expect, it, vi } from "vitest";
import type { InboundMessage } from "../core/inbound.js";
import { recordingLogger } from "../../../../test/support/recording-logger.js";
import { runSettlement } from "./run-settlement.js";

const MESSAGE = { platform: "telegram", messageId: "9", chat: { id: "42", type: "dm" }, user: { id: "42" }, text: "hi", attachments: [], receivedAt: 0 } as unknown as InboundMessage;

describe("runSettlement", () => {
  it("tries a settling the database refused again until it works, so the person hears that the run gave up", async () => {
    const logger = recordingLogger();
    let away = 2;
    let status = "running";
    const inbound = {
      get: async () => {
        if (away > 0) {
          away -= 1;
          throw new Error("database is not currently accepting connections");
        }
        return { id: 1, status, payload: JSON.stringify(MESSAGE), receivedAt: Date.now() } as unknown as InboundRecord;
      },
      setStatus: async (_id: number, next: string) => void (status = next),
    } as unknown as Store["inbound"];
    const notices: string[] = [];
    const settle = runSettlement({
      store: { inbound },
      runDuration: createMetricsRegistry().histogram("run_duration_seconds", "test", { labelNames: ["outcome"] }),
      notice: async (_message, text) => void notices.push(text),
      markDone: () => undefined,
      logger,
      retryMs: 5,
    });

    await settle(1, "failed");
    await vi.waitFor(() => expect(notices).toEqual([expect.stringContaining("couldn't process your message")]), { timeout: 5_000 });
    expect(status).toBe("failed");
    expect(logger.entries.filter((entry) => entry.message === "could not settle a finished run; trying again").map((entry) => entry.fields.retryInMs)).toEqual([5, 10]);
  });

  it("times the run and tells the person once when marking the message failed was refused after the notice went out", async () => {
    let refusals = 1;
    let status = "running";
    const inbound = {
      get: async () => ({ id: 1, status, payload: JSON.stringify(MESSAGE), receivedAt: Date.now() }) as unknown as InboundRecord,
      setStatus: async (_id: number, next: string) => {
        if (refusals > 0) {
          refusals -= 1;
          throw new Error("database is not currently accepting connections");
        }
        status = next;
      },
    } as unknown as Store["inbound"];
    const registry = createMetricsRegistry();
    const notices: string[] = [];
    const settle = runSettlement({
      store: { inbound },
      runDuration: registry.histogram("run_duration_seconds", "test", { labelNames: ["outcome"] }),
      notice: async (_message, text) => void notices.push(text),
      markDone: () => undefined,
      logger: recordingLogger(),
      retryMs: 5,
    });

    await settle(1, "failed");
    await vi.waitFor(() => expect(status).toBe("failed"), { timeout: 5_000 });
    expect(notices).toHaveLength(1);
    expect(await registry.renderPrometheus()).toContain('hermes_run_duration_seconds_count{outcome="failed"} 1\n');
  });
});
