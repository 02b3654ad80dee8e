import { describe, expect, it } from "vitest";
import type { PlatformAdapter } from "../core/adapter.js";
import { DeliveryService, type DeliveryServiceOptions } from "./delivery-service.js";
import type { DeliveryOutcome } from "./delivery-types.js";
import { FakeAdapter, MemoryDeliveryStore, capturingLogger, gate } from "./testing.js";

const CONNECTION_LOST = { ok: false, retryable: true, error: "connect ECONNRESET" } as const;
const BAD_MARKUP = { ok: false, retryable: false, error: "Bad Request: can't parse entities" } as const;

function setup(adapterList: PlatformAdapter[] = [new FakeAdapter()], extra: Partial<DeliveryServiceOptions> = {}) {
  const store = new MemoryDeliveryStore();
  const { logger, entries } = capturingLogger();
  const sleeps: number[] = [];
  const outcomes: [number, DeliveryOutcome][] = [];
  const service = new DeliveryService({
    store,
    adapters: new Map(adapterList.map((adapter) => [adapter.platform, adapter])),
    logger,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    onDelivered: (delivery, outcome) => outcomes.push([delivery.id, outcome]),
    ...extra,
  });
  return { store, service, entries, sleeps, outcomes };
}

describe("DeliveryService.flush: sending", () => {
  it("sends a short reply as one formatted message that quotes the message it answers", async () => {
    const adapter = new FakeAdapter({ formatMarkdown: (markdown) => `<b>${markdown}</b>` });
    const { store, service, outcomes } = setup([adapter]);
    const delivery = store.add({ text: "Hello!", chatId: "42", threadId: "7", replyToMessageId: "m1" });

    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends).toEqual([{ target: { chatId: "42", threadId: "7", replyToMessageId: "m1" }, message: { text: "<b>Hello!</b>", format: "markdown" } }]);
    expect(store.get(delivery.id)?.status).toBe("sent");
    expect(outcomes).toEqual([[delivery.id, "sent"]]);
    expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
  });

  it("sends markdown as it is when the adapter has no formatter", async () => {
    const adapter = new FakeAdapter();
    const { store, service } = setup([adapter]);
    store.add({ text: "*bold*" });
    await service.flush();
    expect(adapter.sends[0]?.message).toEqual({ text: "*bold*", format: "markdown" });
  });

  it("splits a long reply at the platform's limit, quoting only with the first message", async () => {
    const adapter = new FakeAdapter({ textLimit: 40, formatMarkdown: (markdown) => markdown.toUpperCase() });
    const { store, service } = setup([adapter]);
    store.add({ text: "first paragraph of the reply\n\nsecond paragraph of the reply", chatId: "9", threadId: "t", replyToMessageId: "m" });

    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends.map((call) => call.target)).toEqual([
      { chatId: "9", threadId: "t", replyToMessageId: "m" },
      { chatId: "9", threadId: "t" },
    ]);
    expect(adapter.sends.map((call) => call.message.text)).toEqual(["FIRST PARAGRAPH OF THE REPLY\n(1/2)", "SECOND PARAGRAPH OF THE REPLY\n(2/2)"]);
  });

  it("sends pending deliveries oldest first and keeps each chat's messages in order", async () => {
    const adapter = new FakeAdapter();
    const { store, service } = setup([adapter], { chatConcurrency: 1 });
    store.add({ text: "a1", chatId: "a" });
    store.add({ text: "b1", chatId: "b" });
    store.add({ text: "a2", chatId: "a" });
    await service.flush();
    expect(adapter.delivered).toEqual(["a1", "a2", "b1"]);
  });
});

describe("DeliveryService.flush: failures", () => {
  it("retries a rejected formatted message once as plain text", async () => {
    const adapter = new FakeAdapter({ formatMarkdown: (markdown) => `<i>${markdown}</i>` });
    adapter.respondNext(BAD_MARKUP);
    const { store, service, sleeps } = setup([adapter]);
    store.add({ text: "a <tricky> reply" });

    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends.map((call) => call.message)).toEqual([
      { text: "<i>a <tricky> reply</i>", format: "markdown" },
      { text: "a <tricky> reply", format: "plain" },
    ]);
    expect(sleeps).toEqual([]);
  });

  it("gives up a reply the platform rejects in both forms and says so in the chat, once, as plain text", async () => {
    const adapter = new FakeAdapter();
    adapter.respondNext(BAD_MARKUP, { ok: false, retryable: false, error: "Forbidden: bot was blocked" });
    const { store, service, entries, outcomes } = setup([adapter]);
    const delivery = store.add({ text: "answer", chatId: "5", replyToMessageId: "m" });

    expect(await service.flush()).toEqual({ sent: 0, failed: 1 });
    expect(store.get(delivery.id)).toMatchObject({ status: "failed", attempts: 1, lastError: "Forbidden: bot was blocked" });
    expect(adapter.sends).toHaveLength(3);
    expect(adapter.sends[2]).toEqual({
      target: { chatId: "5" },
      message: { text: "Sorry, I couldn't deliver my reply (the chat service rejected it: Forbidden: bot was blocked). Please try again.", format: "plain" },
    });
    expect(outcomes).toEqual([[delivery.id, "failed"]]);
    expect(entries).toContainEqual(expect.objectContaining({ level: "error", msg: "delivery failed", deliveryId: delivery.id, error: "Forbidden: bot was blocked" }));
  });

  it("sends no failure notice for a failed notice", async () => {
    const adapter = new FakeAdapter({ respond: () => BAD_MARKUP });
    const { store, service } = setup([adapter]);
    store.add({ text: "pairing code", kind: "notice" });
    expect(await service.flush()).toEqual({ sent: 0, failed: 1 });
    expect(adapter.sends).toHaveLength(2);
  });

  it("logs, and does not retry, a failure notice the platform refuses", async () => {
    const adapter = new FakeAdapter({ respond: () => BAD_MARKUP });
    const { store, service, entries } = setup([adapter]);
    store.add({ text: "answer" });
    await service.flush();
    expect(adapter.sends).toHaveLength(3);
    expect(entries).toContainEqual(expect.objectContaining({ level: "warn", msg: "could not send the failure notice" }));
  });

  it("fails a delivery for a platform without an adapter, with a clear error", async () => {
    const adapter = new FakeAdapter();
    const { store, service, entries } = setup([adapter]);
    const delivery = store.add({ text: "hi", platform: "matrix" });
    expect(await service.flush()).toEqual({ sent: 0, failed: 1 });
    expect(store.get(delivery.id)).toMatchObject({ status: "failed", lastError: 'no adapter is running for platform "matrix"' });
    expect(adapter.sends).toEqual([]);
    expect(entries).toContainEqual(expect.objectContaining({ msg: "delivery failed", platform: "matrix" }));
  });

  it("fails an empty reply and tells the chat", async () => {
    const adapter = new FakeAdapter();
    const { store, service } = setup([adapter]);
    store.add({ text: "  \n " });
    expect(await service.flush()).toEqual({ sent: 0, failed: 1 });
    expect(adapter.delivered).toEqual(["Sorry, I couldn't deliver my reply (it was empty). Please try again."]);
  });

  it("treats a throwing adapter as a rejection", async () => {
    const adapter = new FakeAdapter({
      respond: () => {
        throw new Error("socket closed");
      },
    });
    const { store, service } = setup([adapter]);
    const delivery = store.add({ text: "hi", kind: "notice" });
    expect(await service.flush()).toEqual({ sent: 0, failed: 1 });
    expect(store.get(delivery.id)?.lastError).toBe("adapter threw: socket closed");
  });

  it("sends plain text when the formatter throws", async () => {
    const adapter = new FakeAdapter({
      formatMarkdown: () => {
        throw new Error("formatter bug");
      },
    });
    const { store, service } = setup([adapter]);
    store.add({ text: "*hi*" });
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends.map((call) => call.message)).toEqual([{ text: "*hi*", format: "plain" }]);
  });

  it("fails one delivery whose adapter is broken without stopping the others", async () => {
    const broken = new FakeAdapter({ platform: "broken", textLimit: 0 });
    const working = new FakeAdapter();
    const { store, service, entries } = setup([broken, working]);
    store.add({ text: "one", platform: "broken" });
    store.add({ text: "two" });
    expect(await service.flush()).toEqual({ sent: 1, failed: 1 });
    expect(working.delivered).toEqual(["two"]);
    expect(broken.delivered).toEqual(["Sorry, I couldn't deliver my reply (an internal error). Please try again."]);
    expect(entries).toContainEqual(expect.objectContaining({ level: "error", msg: "delivery crashed" }));
  });
});

describe("DeliveryService.flush: retryable failures", () => {
  it("retries connection errors with exponential backoff, then succeeds", async () => {
    const adapter = new FakeAdapter();
    adapter.respondNext(CONNECTION_LOST, CONNECTION_LOST, CONNECTION_LOST);
    const { store, service, sleeps } = setup([adapter]);
    store.add({ text: "hi" });
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends).toHaveLength(4);
    expect(sleeps).toEqual([500, 1000, 2000]);
  });

  it("waits as long as a rate limit asks", async () => {
    const adapter = new FakeAdapter();
    adapter.respondNext({ ok: false, retryable: true, error: "Too Many Requests", retryAfterMs: 3000 });
    const { store, service, sleeps } = setup([adapter]);
    store.add({ text: "hi" });
    await service.flush();
    expect(sleeps).toEqual([3000]);
    expect(adapter.delivered).toEqual(["hi"]);
  });

  it("keeps a delivery pending after maxAttempts sends and resumes later without repeating sent parts", async () => {
    const adapter = new FakeAdapter({ textLimit: 30 });
    const { store, service, outcomes, entries } = setup([adapter], { maxAttempts: 3 });
    const delivery = store.add({ text: "first part of the reply.\n\nsecond part of it.\n\nthird part of it." });
    adapter.respondNext({ ok: true }, CONNECTION_LOST, CONNECTION_LOST, CONNECTION_LOST);

    expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
    expect(store.get(delivery.id)).toMatchObject({ status: "pending", attempts: 1 });
    expect(adapter.sends).toHaveLength(4);
    expect(outcomes).toEqual([]);
    expect(entries).toContainEqual(expect.objectContaining({ level: "warn", msg: "delivery failed; it will be retried" }));

    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.delivered).toEqual(["first part of the reply.\n(1/3)", "second part of it.\n(2/3)", "third part of it.\n(3/3)"]);
  });

  it("gives up after maxDeliveryAttempts flushes and tells the chat what is left undelivered", async () => {
    const adapter = new FakeAdapter({ textLimit: 30 });
    const { store, service } = setup([adapter], { maxAttempts: 2, maxDeliveryAttempts: 2 });
    const delivery = store.add({ text: "first part of the reply.\n\nsecond part of it.", chatId: "c" });
    adapter.respondNext({ ok: true }, CONNECTION_LOST, CONNECTION_LOST, CONNECTION_LOST, CONNECTION_LOST);

    expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
    expect(await service.flush()).toEqual({ sent: 0, failed: 1 });
    expect(store.get(delivery.id)).toMatchObject({ status: "failed", attempts: 2, lastError: "part 2 of 2: connect ECONNRESET" });
    expect(adapter.sends.at(-1)?.message).toEqual({
      text: "Sorry, I couldn't deliver the rest of my reply (the chat service could not be reached). Please try again.",
      format: "plain",
    });
  });

  it("holds back later messages to a chat while an earlier one is pending, but not other chats'", async () => {
    const adapter = new FakeAdapter({ respond: (call) => (call.target.chatId === "a" ? CONNECTION_LOST : { ok: true }) });
    const { store, service } = setup([adapter], { maxAttempts: 1 });
    store.add({ text: "a1", chatId: "a" });
    store.add({ text: "a2", chatId: "a" });
    store.add({ text: "b1", chatId: "b" });
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends.map((call) => call.message.text)).toEqual(["a1", "b1"]);
  });

  it("does not send a chunk again when marking the delivery sent failed", async () => {
    const adapter = new FakeAdapter();
    const store = new MemoryDeliveryStore();
    let markSentFailures = 1;
    const flakyStore = {
      pending: (limit?: number) => store.pending(limit),
      recordFailure: (id: number, error: string, final: boolean) => store.recordFailure(id, error, final),
      markSent: async (id: number) => {
        if (markSentFailures-- > 0) throw new Error("database is locked");
        await store.markSent(id);
      },
    };
    const { logger, entries } = capturingLogger();
    const service = new DeliveryService({ store: flakyStore, adapters: new Map([["fake", adapter]]), logger });
    store.add({ text: "hi" });
    expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
    expect(entries).toContainEqual(expect.objectContaining({ level: "error", msg: "could not mark a delivery sent" }));
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends).toHaveLength(1);
  });
});

describe("DeliveryService: concurrency and polling", () => {
  it("never sends a delivery twice when flushes are requested concurrently", async () => {
    const held = gate();
    const adapter = new FakeAdapter({ respond: async () => (await held.promise, { ok: true }) });
    const { store, service } = setup([adapter]);
    store.add({ text: "one" });
    const flushes = [service.flush(), service.flush(), service.flush()];
    store.add({ text: "two" });
    held.open();
    // Calls made during a flush share the one flush queued behind it.
    expect(flushes[1]).toBe(flushes[2]);
    expect(await Promise.all(flushes)).toEqual([
      { sent: 1, failed: 0 },
      { sent: 1, failed: 0 },
      { sent: 1, failed: 0 },
    ]);
    expect(adapter.sends.map((call) => call.message.text)).toEqual(["one", "two"]);
  });

  it("serves other chats while one chat's send is slow", async () => {
    const held = gate();
    const adapter = new FakeAdapter({ respond: async (call) => (call.target.chatId === "slow" ? await held.promise : undefined, { ok: true }) });
    const { store, service } = setup([adapter]);
    store.add({ text: "slow reply", chatId: "slow" });
    store.add({ text: "quick reply", chatId: "quick" });
    const flush = service.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(adapter.delivered).toEqual(["quick reply"]);
    held.open();
    expect(await flush).toEqual({ sent: 2, failed: 0 });
  });

  it("polls on its schedule and stops after the flush in progress", async () => {
    const scheduled: { callback: () => void; ms: number; cancelled: boolean }[] = [];
    const schedule = (callback: () => void, ms: number) => {
      const entry = { callback, ms, cancelled: false };
      scheduled.push(entry);
      return () => {
        entry.cancelled = true;
      };
    };
    const held = gate();
    const adapter = new FakeAdapter();
    const { store, service } = setup([adapter], { schedule });

    store.add({ text: "waiting at start" });
    service.start(250);
    service.start(250);
    await new Promise((resolve) => setImmediate(resolve));
    expect(adapter.delivered).toEqual(["waiting at start"]);
    expect(scheduled.map((entry) => entry.ms)).toEqual([250]);

    store.add({ text: "while polling" });
    adapter.respondNext(async () => (await held.promise, { ok: true }));
    scheduled[0]?.callback();
    let stopped = false;
    const stopping = service.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    held.open();
    await stopping;
    expect(adapter.delivered).toEqual(["waiting at start", "while polling"]);
    expect(store.records.map((record) => record.status)).toEqual(["sent", "sent"]);
    expect(scheduled).toHaveLength(1);
  });
});
