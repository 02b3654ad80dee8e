import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger, type Logger } from "@hermes/agent";
import { openStore, type Store } from "@hermes/store";
import { recordingLogger } from "../hooks/hook-test-fixtures.js";
import { recordSpansGlobally } from "../tracing/span-recorder.fixture.js";
import { Gateway } from "./gateway.js";
import { DEFAULT_SESSION_SCOPE } from "./session-key.js";
import { inbound } from "./testing.js";

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-gw-unit-"));
  store = await openStore({ file: path.join(dir, "state.db") });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

function gatewayWith(
  queue: { enqueue: (job: { inboundId: number; sessionKey: string }) => Promise<{ enqueued: boolean }> },
  logger: Logger = silentLogger,
  limits?: { ratePerMinute?: number; maxQueued?: number },
): Gateway {
  return new Gateway({
    limits,
    store,
    queue: { ...queue, stop: async () => {} },
    hooks: { emit: async () => ({ blocked: false }) },
    delivery: { flush: async () => undefined },
    typing: { begin: () => {}, end: () => {} },
    authorize: async () => ({ kind: "allowed", via: "allowlist" }),
    sessionScope: DEFAULT_SESSION_SCOPE,
    botName: () => undefined,
    models: { primary: "m" },
    checkModel: () => undefined,
    compress: async () => "",
    logger,
  });
}

describe("Gateway.receive", () => {
  it("routes a redelivered message whose first routing failed, instead of dropping it as a duplicate", async () => {
    const enqueued: number[] = [];
    let failNext = true;
    const gateway = gatewayWith({
      enqueue: async (job) => {
        if (failNext) {
          failNext = false;
          throw new Error("redis unavailable");
        }
        enqueued.push(job.inboundId);
        return { enqueued: true };
      },
    });
    const message = inbound({ messageId: "u-1" });
    await expect(gateway.receive(message)).rejects.toThrow("redis unavailable");
    await gateway.receive(message);
    expect(enqueued).toHaveLength(1);
    await gateway.receive(message);
    expect(enqueued).toHaveLength(2);
  });

  it.each([
    ["messageId", inbound({ messageId: "" })],
    ["chat.id", inbound({ messageId: "u-4", chat: { id: "", type: "dm" } })],
    ["user.id", inbound({ messageId: "u-5", user: { id: "  ", name: "Ada" } })],
  ] as const)("refuses a message with an empty %s: a warning naming the platform and the field, nothing saved or run, and it resolves", async (field, message) => {
    const enqueued: number[] = [];
    const logger = recordingLogger();
    const gateway = gatewayWith({ enqueue: async (job) => (enqueued.push(job.inboundId), { enqueued: true }) }, logger);
    await expect(gateway.receive(message)).resolves.toBeUndefined();

    expect(logger.records).toEqual([{ level: "warn", message: "inbound message refused: a required field is empty", fields: { platform: "telegram", field } }]);
    expect(enqueued).toEqual([]);
    expect(await store.inbound.recent(10)).toEqual([]);
    expect(await store.deliveries.countPending()).toBe(0);
    // The next, complete message goes through as usual.
    await gateway.receive(inbound({ messageId: "u-6" }));
    expect(enqueued).toHaveLength(1);
  });

  it("drops a plain duplicate", async () => {
    const enqueued: number[] = [];
    const gateway = gatewayWith({ enqueue: async (job) => (enqueued.push(job.inboundId), { enqueued: true }) });
    const message = inbound({ messageId: "u-2" });
    await gateway.receive(message);
    await store.inbound.setStatus(enqueued[0] ?? 0, "answered");
    await gateway.receive(message);
    expect(enqueued).toHaveLength(1);
  });

  it("saves the message with its receive span's trace context, the same one its job carries", async () => {
    const recorder = recordSpansGlobally();
    try {
      const jobs: Array<{ inboundId: number; traceparent?: string }> = [];
      const gateway = gatewayWith({ enqueue: async (job) => (jobs.push(job), { enqueued: true }) });
      await gateway.receive(inbound({ messageId: "u-3" }));

      const [receive] = recorder.named("receive telegram");
      const context = receive?.spanContext();
      const traceparent = `00-${context?.traceId}-${context?.spanId}-01`;
      expect((await store.inbound.get(jobs[0]?.inboundId ?? 0))?.traceContext).toEqual({ traceparent });
      expect(jobs[0]?.traceparent).toBe(traceparent);
    } finally {
      await recorder.stop();
    }
  });

  // With the limits on, the count the intake judged the message by is the one the acknowledgement uses.
  for (const limits of [undefined, { maxQueued: 5 }]) {
    it(`acknowledges a message only while an earlier one of the session is unanswered (limits ${limits ? "on" : "off"})`, async () => {
      const gateway = gatewayWith({ enqueue: async () => ({ enqueued: true }) }, silentLogger, limits);
      await gateway.receive(inbound({ messageId: "u-1", text: "first" }));
      expect(await store.deliveries.pending()).toEqual([]);
      await gateway.receive(inbound({ messageId: "u-2", text: "second" }));
      expect((await store.deliveries.pending()).map((d) => d.text)).toEqual(["Got it. I'm still answering your previous message; I'll get to this one right after."]);
    });
  }
});
