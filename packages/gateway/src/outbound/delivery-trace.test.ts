import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { trace } from "@opentelemetry/api";
import { silentLogger } from "@hermes/agent";
import { openStore, type Store } from "@hermes/store";
import { recordSpansGlobally, type GlobalSpanRecorder } from "../tracing/span-recorder.fixture.js";
import { currentTraceCarrier, type TraceCarrier } from "../tracing/trace-carrier.js";
import { DeliveryService, type DeliveryServiceOptions } from "./delivery-service.js";
import { FakeAdapter } from "./testing.js";

let dir: string;
let file: string;
let recorder: GlobalSpanRecorder;
const opened: Store[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-delivery-trace-"));
  file = path.join(dir, "state.db");
  recorder = recordSpansGlobally();
});
afterEach(async () => {
  await recorder.stop();
  for (const store of opened.splice(0)) await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function open(): Promise<Store> {
  const store = await openStore({ file });
  opened.push(store);
  return store;
}

/** A message saved with its receive span's context, and its reply waiting in the outbox. */
async function answeredMessage(store: Store, messageId: string, traceContext: TraceCarrier): Promise<number> {
  const { record } = await store.inbound.recordIfNew({ platform: "fake", messageId, payload: "{}", status: "answered", traceContext });
  await store.deliveries.enqueue({ inboundId: record.id, platform: "fake", chatId: "42", text: `reply to ${messageId}`, kind: "reply" });
  return record.id;
}

function receiveSpan(): TraceCarrier {
  return trace.getTracer("test").startActiveSpan("receive fake", (span) => {
    const carrier = currentTraceCarrier();
    span.end();
    return carrier;
  });
}

describe("the trace of a reply delivered from the outbox", () => {
  it("is its message's trace even when the process that received the message is gone", async () => {
    const before = await open();
    const inboundId = await answeredMessage(before, "m1", receiveSpan());
    await before.close();
    opened.splice(0);

    // After the restart: a new store handle and a new delivery service, nothing remembered in memory.
    const store = await open();
    const adapter = new FakeAdapter();
    const service = new DeliveryService({ store: store.deliveries, inbound: store.inbound, adapters: new Map([["fake", adapter]]), logger: silentLogger });
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });

    const [receive] = recorder.named("receive fake");
    const [send] = recorder.named("send fake");
    expect(adapter.delivered).toEqual(["reply to m1"]);
    expect(send?.parentSpanContext?.spanId).toBe(receive?.spanContext().spanId);
    expect(send?.spanContext().traceId).toBe(receive?.spanContext().traceId);
    expect(send?.attributes).toMatchObject({ "hermes.inbound_id": inboundId, "hermes.delivery.outcome": "sent" });
  });

  it("is a trace of its own when the saved context is damaged or cannot be read, and the reply still goes out", async () => {
    const store = await open();
    const adapter = new FakeAdapter();
    const serviceReading = (inbound: DeliveryServiceOptions["inbound"]) =>
      new DeliveryService({ store: store.deliveries, inbound, adapters: new Map([["fake", adapter]]), logger: silentLogger });

    await answeredMessage(store, "m1", { traceparent: "garbage" });
    expect(await serviceReading(store.inbound).flush()).toEqual({ sent: 1, failed: 0 });
    await answeredMessage(store, "m2", receiveSpan());
    expect(await serviceReading({ get: () => Promise.reject(new Error("database is locked")) }).flush()).toEqual({ sent: 1, failed: 0 });

    expect(adapter.delivered).toEqual(["reply to m1", "reply to m2"]);
    const sends = recorder.named("send fake");
    expect(sends).toHaveLength(2);
    for (const send of sends) expect(send.parentSpanContext).toBeUndefined();
  });
});
