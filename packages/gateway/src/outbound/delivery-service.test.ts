import { afterEach, describe, expect, it, vi } from "vitest";
import type { Store } from "@hermes/store";
import type { PlatformAdapter } from "../core/adapter.js";
import type { DeliveryServiceOptions } from "./delivery-service.js";
import { deliveryFixtures } from "./delivery-testing.js";
import { FakeAdapter, gate } from "./testing.js";

const CONNECTION_LOST = { ok: false, retryable: true, error: "connect ECONNRESET" } as const;
const BAD_MARKUP = { ok: false, retryable: false, error: "Bad Request: can't parse entities" } as const;
// Past any retry backoff, so the next flush finds a retried delivery due.
const BACKOFF_PASSED_MS = 60_000;

const fixtures = deliveryFixtures();
afterEach(() => fixtures.cleanup());

async function setup(adapterList: PlatformAdapter[] = [new FakeAdapter()], extra: Partial<DeliveryServiceOptions> = {}) {
  const { store } = await fixtures.open();
  const add = (delivery: Parameters<typeof fixtures.add>[1]) => fixtures.add(store, delivery);
  const get = async (id: number) => store.deliveries.get(id);
  return { store, add, get, ...fixtures.service(store, adapterList, extra) };
}

const statuses = async (store: Store): Promise<string[]> => {
  const rows = [];
  for (let id = 1; ; id++) {
    const row = await store.deliveries.get(id);
    if (!row) return rows;
    rows.push(row.status);
  }
};

describe("DeliveryService.flush: sending", () => {
  it("sends a short reply as one formatted message that quotes the message it answers", async () => {
    const adapter = new FakeAdapter({ formatMarkdown: (markdown) => `<b>${markdown}</b>` });
    const { add, get, service, outcomes } = await setup([adapter]);
    const delivery = await add({ text: "Hello!", chatId: "42", threadId: "7", replyToMessageId: "m1" });

    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends).toEqual([
      { target: { chatId: "42", threadId: "7", replyToMessageId: "m1" }, message: { text: "<b>Hello!</b>", format: "markdown", idempotencyKey: `d${delivery.id}p1` } },
    ]);
    expect(await get(delivery.id)).toMatchObject({ status: "sent", claimOwner: undefined });
    expect(outcomes).toEqual([[delivery.id, "sent"]]);
    expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
  });

  it("sends markdown as it is when the adapter has no formatter", async () => {
    const adapter = new FakeAdapter();
    const { add, service } = await setup([adapter]);
    await add({ text: "*bold*" });
    await service.flush();
    expect(adapter.sends[0]?.message).toMatchObject({ text: "*bold*", format: "markdown" });
  });

  it("splits a long reply at the platform's limit, quoting only with the first message", async () => {
    const adapter = new FakeAdapter({ textLimit: 40, formatMarkdown: (markdown) => markdown.toUpperCase() });
    const { add, service } = await setup([adapter]);
    const delivery = await add({ text: "first paragraph of the reply\n\nsecond paragraph of the reply", chatId: "9", threadId: "t", replyToMessageId: "m" });

    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends.map((call) => call.target)).toEqual([
      { chatId: "9", threadId: "t", replyToMessageId: "m" },
      { chatId: "9", threadId: "t" },
    ]);
    expect(adapter.sends.map((call) => call.message.text)).toEqual(["FIRST PARAGRAPH OF THE REPLY\n(1/2)", "SECOND PARAGRAPH OF THE REPLY\n(2/2)"]);
    expect(adapter.sends.map((call) => call.message.idempotencyKey)).toEqual([`d${delivery.id}p1`, `d${delivery.id}p2`]);
  });

  it("keeps each chat's messages in order and serves chats oldest first, one at a time with a concurrency of 1", async () => {
    const adapter = new FakeAdapter();
    const { add, service } = await setup([adapter], { chatConcurrency: 1 });
    await add({ text: "a1", chatId: "a" });
    await add({ text: "b1", chatId: "b" });
    await add({ text: "a2", chatId: "a" });
    expect(await service.flush()).toEqual({ sent: 3, failed: 0 });
    // After a1, the oldest waiting message is b1: a busy chat does not starve the others.
    expect(adapter.delivered).toEqual(["a1", "b1", "a2"]);
  });
});

describe("DeliveryService.flush: failures", () => {
  it("retries a rejected formatted message once as plain text", async () => {
    const adapter = new FakeAdapter({ formatMarkdown: (markdown) => `<i>${markdown}</i>` });
    adapter.respondNext(BAD_MARKUP);
    const { add, service, sleeps } = await setup([adapter]);
    const delivery = await add({ text: "a <tricky> reply" });

    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends.map((call) => call.message)).toEqual([
      { text: "<i>a <tricky> reply</i>", format: "markdown", idempotencyKey: `d${delivery.id}p1` },
      { text: "a <tricky> reply", format: "plain", idempotencyKey: `d${delivery.id}p1` },
    ]);
    expect(sleeps).toEqual([]);
  });

  it("gives up a reply the platform rejects in both forms and says so in the chat, once, as plain text", async () => {
    const adapter = new FakeAdapter();
    adapter.respondNext(BAD_MARKUP, { ok: false, retryable: false, error: "Forbidden: bot was blocked" });
    const { add, get, service, entries, outcomes } = await setup([adapter]);
    const delivery = await add({ text: "answer", chatId: "5", replyToMessageId: "m" });

    expect(await service.flush()).toEqual({ sent: 0, failed: 1 });
    expect(await get(delivery.id)).toMatchObject({ status: "failed", attempts: 1, lastError: "Forbidden: bot was blocked" });
    expect(adapter.sends).toHaveLength(3);
    expect(adapter.sends[2]).toEqual({
      target: { chatId: "5" },
      message: {
        text: "Sorry, I couldn't deliver my reply (the chat service rejected it: Forbidden: bot was blocked). Please try again.",
        format: "plain",
        idempotencyKey: `d${delivery.id}n`,
      },
    });
    expect(outcomes).toEqual([[delivery.id, "failed"]]);
    expect(entries).toContainEqual(expect.objectContaining({ level: "error", msg: "delivery failed", deliveryId: delivery.id, error: "Forbidden: bot was blocked" }));
  });

  it("sends no failure notice for a failed notice", async () => {
    const adapter = new FakeAdapter({ respond: () => BAD_MARKUP });
    const { add, service } = await setup([adapter]);
    await add({ text: "pairing code", kind: "notice" });
    expect(await service.flush()).toEqual({ sent: 0, failed: 1 });
    expect(adapter.sends).toHaveLength(2);
  });

  it("logs, and does not retry, a failure notice the platform refuses", async () => {
    const adapter = new FakeAdapter({ respond: () => BAD_MARKUP });
    const { add, service, entries } = await setup([adapter]);
    await add({ text: "answer" });
    await service.flush();
    expect(adapter.sends).toHaveLength(3);
    expect(entries).toContainEqual(expect.objectContaining({ level: "warn", msg: "could not send the failure notice" }));
  });

  it("fails an empty reply and tells the chat", async () => {
    const adapter = new FakeAdapter();
    const { add, service } = await setup([adapter]);
    await add({ text: "  \n " });
    expect(await service.flush()).toEqual({ sent: 0, failed: 1 });
    expect(adapter.delivered).toEqual(["Sorry, I couldn't deliver my reply (it was empty). Please try again."]);
  });

  it("treats a throwing adapter as a rejection", async () => {
    const adapter = new FakeAdapter({
      respond: () => {
        throw new Error("socket closed");
      },
    });
    const { add, get, service } = await setup([adapter]);
    const delivery = await add({ text: "hi", kind: "notice" });
    expect(await service.flush()).toEqual({ sent: 0, failed: 1 });
    expect((await get(delivery.id))?.lastError).toBe("adapter threw: socket closed");
  });

  it("sends plain text when the formatter throws", async () => {
    const adapter = new FakeAdapter({
      formatMarkdown: () => {
        throw new Error("formatter bug");
      },
    });
    const { add, service } = await setup([adapter]);
    await add({ text: "*hi*" });
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends.map((call) => call.message)).toEqual([{ text: "*hi*", format: "plain", idempotencyKey: "d1p1" }]);
  });

  it("fails one delivery whose adapter is broken without stopping the others", async () => {
    const broken = new FakeAdapter({ platform: "broken", textLimit: 0 });
    const working = new FakeAdapter();
    const { add, service, entries } = await setup([broken, working]);
    await add({ text: "one", platform: "broken" });
    await add({ text: "two" });
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
    const { add, service, sleeps } = await setup([adapter]);
    await add({ text: "hi" });
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends).toHaveLength(4);
    expect(sleeps).toEqual([500, 1000, 2000]);
  });

  it("defers a rate-limited delivery for as long as the platform asks, without waiting and without counting an attempt", async () => {
    const adapter = new FakeAdapter();
    adapter.respondNext({ ok: false, retryable: true, error: "Too Many Requests", retryAfterMs: 3000 });
    const deferred: number[] = [];
    const { add, get, service, sleeps } = await setup([adapter], { onDeferred: (row) => deferred.push(row.id) });
    const delivery = await add({ text: "hi" });
    expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
    expect(sleeps).toEqual([]);
    expect(deferred).toEqual([delivery.id]);
    expect(await get(delivery.id)).toMatchObject({ status: "pending", attempts: 0, nextAttemptAt: fixtures.now() + 3000, claimOwner: undefined });

    fixtures.advance(2999);
    expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
    fixtures.advance(1);
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.delivered).toEqual(["hi"]);
    expect(deferred).toEqual([delivery.id]);
  });

  it("keeps a delivery pending after maxAttempts sends and resumes later without repeating sent parts", async () => {
    const adapter = new FakeAdapter({ textLimit: 30 });
    const { add, get, service, outcomes, entries } = await setup([adapter], { maxAttempts: 3 });
    const delivery = await add({ text: "first part of the reply.\n\nsecond part of it.\n\nthird part of it." });
    adapter.respondNext({ ok: true }, CONNECTION_LOST, CONNECTION_LOST, CONNECTION_LOST);

    expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
    expect(await get(delivery.id)).toMatchObject({ status: "pending", attempts: 1, partsSent: 1 });
    expect(adapter.sends).toHaveLength(4);
    expect(outcomes).toEqual([]);
    expect(entries).toContainEqual(expect.objectContaining({ level: "warn", msg: "delivery failed; it will be retried" }));

    // Not due before its backoff has passed.
    expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
    fixtures.advance(BACKOFF_PASSED_MS);
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.delivered).toEqual(["first part of the reply.\n(1/3)", "second part of it.\n(2/3)", "third part of it.\n(3/3)"]);
  });

  it("gives up after maxDeliveryAttempts failed attempts and tells the chat what is left undelivered", async () => {
    const adapter = new FakeAdapter({ textLimit: 30 });
    const { add, get, service } = await setup([adapter], { maxAttempts: 2, maxDeliveryAttempts: 2 });
    const delivery = await add({ text: "first part of the reply.\n\nsecond part of it.", chatId: "c" });
    adapter.respondNext({ ok: true }, CONNECTION_LOST, CONNECTION_LOST, CONNECTION_LOST, CONNECTION_LOST);

    expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
    fixtures.advance(BACKOFF_PASSED_MS);
    expect(await service.flush()).toEqual({ sent: 0, failed: 1 });
    expect(await get(delivery.id)).toMatchObject({ status: "failed", attempts: 2, lastError: "part 2 of 2: connect ECONNRESET" });
    expect(adapter.sends.at(-1)?.message).toEqual({
      text: "Sorry, I couldn't deliver the rest of my reply (the chat service could not be reached). Please try again.",
      format: "plain",
      idempotencyKey: `d${delivery.id}n`,
    });
  });

  it("spaces a failing delivery's attempts out over minutes, so a short outage of the platform loses no reply", async () => {
    const adapter = new FakeAdapter({ respond: () => CONNECTION_LOST });
    const { add, get, service, outcomes } = await setup([adapter], { maxAttempts: 1 });
    const delivery = await add({ text: "hi" });
    const pauses: number[] = [];
    for (let attempt = 1; attempt < 5; attempt++) {
      expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
      const row = await get(delivery.id);
      expect(row).toMatchObject({ status: "pending", attempts: attempt });
      pauses.push((row?.nextAttemptAt ?? 0) - fixtures.now());
      fixtures.advance(pauses.at(-1) ?? 0);
    }
    expect(pauses).toEqual([10_000, 30_000, 90_000, 270_000]);
    expect(await service.flush()).toEqual({ sent: 0, failed: 1 });
    expect(outcomes).toEqual([[delivery.id, "failed"]]);
  });

  it("holds back later messages to a chat while an earlier one is pending, but not other chats'", async () => {
    const adapter = new FakeAdapter({ respond: (call) => (call.target.chatId === "a" ? CONNECTION_LOST : { ok: true }) });
    const { add, service } = await setup([adapter], { maxAttempts: 1 });
    await add({ text: "a1", chatId: "a" });
    await add({ text: "a2", chatId: "a" });
    await add({ text: "b1", chatId: "b" });
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends.map((call) => call.message.text)).toEqual(["a1", "b1"]);
  });

  it("does not send a part again when marking the delivery sent failed", async () => {
    const adapter = new FakeAdapter();
    const { store } = await fixtures.open();
    let markSentFailures = 1;
    const flakyStore = {
      ...store.deliveries,
      markSent: async (id: number, owner: string) => {
        if (markSentFailures-- > 0) throw new Error("database is locked");
        return store.deliveries.markSent(id, owner);
      },
    };
    const { service, entries } = fixtures.service(store, [adapter], { store: flakyStore });
    await fixtures.add(store, { text: "hi" });
    expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
    expect(entries).toContainEqual(expect.objectContaining({ level: "error", msg: "could not mark a delivery sent" }));
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends).toHaveLength(1);
  });

  it("marks a sent delivery whose mark failed before it stops, so no later process sends it again", async () => {
    const adapter = new FakeAdapter();
    const { store } = await fixtures.open();
    let markSentFailures = 1;
    const flakyStore = {
      ...store.deliveries,
      markSent: async (id: number, owner: string) => {
        if (markSentFailures-- > 0) throw new Error("database is locked");
        return store.deliveries.markSent(id, owner);
      },
    };
    const { service, outcomes } = fixtures.service(store, [adapter], { store: flakyStore });
    const reply = await fixtures.add(store, { text: "hi" });
    expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
    await service.stop();
    expect(await store.deliveries.get(reply.id)).toMatchObject({ status: "sent" });
    expect(outcomes).toEqual([[reply.id, "sent"]]);
    expect(adapter.sends).toHaveLength(1);
  });

  it("marks a sent delivery whose mark failed at the next flush asked for, even while another chat keeps the flush going, and never sends it again", async () => {
    const held = gate();
    const adapter = new FakeAdapter({ respond: async (call) => (call.target.chatId === "slow" ? await held.promise : undefined, { ok: true }) });
    const { store } = await fixtures.open();
    let markSentFailures = 1;
    const flakyStore = {
      ...store.deliveries,
      markSent: async (id: number, owner: string) => {
        if (markSentFailures-- > 0) throw new Error("database is locked");
        return store.deliveries.markSent(id, owner);
      },
    };
    const { service } = fixtures.service(store, [adapter], { store: flakyStore, leaseMs: 60_000 });
    await fixtures.add(store, { text: "slow reply", chatId: "slow" });
    const reply = await fixtures.add(store, { text: "hi" });
    const flush = service.flush();
    try {
      await vi.waitFor(() => expect(adapter.delivered).toEqual(["hi"]));
      await new Promise((resolve) => setImmediate(resolve));
      // Long enough for the unmarked row's claim to run out while the flush still waits for the slow chat.
      fixtures.advance(61_000);
      void service.flush();
      await vi.waitFor(async () => expect((await store.deliveries.get(reply.id))?.status).toBe("sent"));
      void service.flush();
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      held.open();
    }
    await flush;
    expect(adapter.sends.filter((call) => call.target.chatId === "chat-1")).toHaveLength(1);
  });
});


describe("DeliveryService: concurrency and polling", () => {
  it("never sends a delivery twice when flushes are requested concurrently", async () => {
    const held = gate();
    const adapter = new FakeAdapter({ respond: async () => (await held.promise, { ok: true }) });
    const { add, service } = await setup([adapter]);
    await add({ text: "one" });
    const flushes = [service.flush(), service.flush(), service.flush()];
    await add({ text: "two" });
    void service.flush();
    held.open();
    // Calls made during a flush join it; it looks for new deliveries again before it ends.
    expect(flushes[1]).toBe(flushes[0]);
    expect(await Promise.all(flushes)).toEqual([
      { sent: 2, failed: 0 },
      { sent: 2, failed: 0 },
      { sent: 2, failed: 0 },
    ]);
    expect(adapter.sends.map((call) => call.message.text)).toEqual(["one", "two"]);
  });

  it("serves other chats while one chat's send is slow, including replies written during the flush", async () => {
    const held = gate();
    const adapter = new FakeAdapter({ respond: async (call) => (call.target.chatId === "slow" ? await held.promise : undefined, { ok: true }) });
    const { add, service } = await setup([adapter]);
    await add({ text: "slow reply", chatId: "slow" });
    await add({ text: "quick reply", chatId: "quick" });
    const flush = service.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(adapter.delivered).toEqual(["quick reply"]);
    await add({ text: "later reply", chatId: "other" });
    void service.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(adapter.delivered).toEqual(["quick reply", "later reply"]);
    held.open();
    expect(await flush).toEqual({ sent: 3, failed: 0 });
  });

  it("looks again at once for a reply written while the flush was claiming, though another chat's send is slow", async () => {
    const held = gate();
    const adapter = new FakeAdapter({ respond: async (call) => (call.target.chatId === "slow" ? await held.promise : undefined, { ok: true }) });
    const { add, service } = await setup([adapter]);
    await add({ text: "slow reply", chatId: "slow" });
    const flush = service.flush();
    // Written and announced before the flush has seen its first claim's answer.
    const written = add({ text: "new reply", chatId: "other" });
    void service.flush();
    await written;
    await vi.waitFor(() => expect(adapter.delivered).toEqual(["new reply"]));
    held.open();
    expect(await flush).toEqual({ sent: 2, failed: 0 });
  });

  it("still takes up replies asked for after its first thousand claims while one chat's send is slow", async () => {
    const held = gate();
    const adapter = new FakeAdapter({ respond: async (call) => (call.target.chatId === "slow" ? await held.promise : undefined, { ok: true }) });
    const { add, service } = await setup([adapter]);
    await add({ text: "slow reply", chatId: "slow" });
    for (let chat = 0; chat < 999; chat++) await add({ text: `reply ${chat}`, chatId: `chat-${chat}` });
    const flush = service.flush();
    try {
      await vi.waitFor(() => expect(adapter.delivered).toHaveLength(999), { timeout: 20_000 });
      await add({ text: "after the thousandth", chatId: "late" });
      void service.flush();
      await vi.waitFor(() => expect(adapter.delivered).toContain("after the thousandth"));
    } finally {
      held.open();
    }
    expect(await flush).toEqual({ sent: 1001, failed: 0 });
  }, 60_000);

  it("polls on its schedule, wakes early for a deferred delivery, and stops after the flush in progress", async () => {
    const scheduled: { callback: () => void; ms: number; cancelled: boolean }[] = [];
    const schedule = (callback: () => void, ms: number) => {
      const entry = { callback, ms, cancelled: false };
      scheduled.push(entry);
      return () => {
        entry.cancelled = true;
      };
    };
    // The timers still set: a tick's wait for a flush outlasting the poll interval is cancelled when the flush ends.
    const live = () => scheduled.filter((entry) => !entry.cancelled);
    const held = gate();
    const adapter = new FakeAdapter();
    const { store, add, service } = await setup([adapter], { schedule });
    const settle = async () => {
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    };

    await add({ text: "waiting at start" });
    service.start(1000);
    service.start(1000);
    await settle();
    expect(adapter.delivered).toEqual(["waiting at start"]);
    expect(live().map((entry) => entry.ms)).toEqual([1000]);

    await add({ text: "rate limited", chatId: "limited" });
    adapter.respondNext({ ok: false, retryable: true, error: "Too Many Requests", retryAfterMs: 300 });
    live()[0]?.callback();
    await settle();
    expect(live().map((entry) => entry.ms)).toEqual([1000, 300]);

    fixtures.advance(300);
    await add({ text: "while polling" });
    adapter.respondNext(async () => (await held.promise, { ok: true }));
    live()[1]?.callback();
    await settle();
    let stopped = false;
    const stopping = service.stop().then(() => {
      stopped = true;
    });
    await settle();
    expect(stopped).toBe(false);
    held.open();
    await stopping;
    expect(adapter.delivered).toEqual(["waiting at start", "rate limited", "while polling"]);
    expect(await statuses(store)).toEqual(["sent", "sent", "sent"]);
    expect(live()).toHaveLength(2);
  });

  it("keeps polling while one chat's send is slow, so another chat's deferred reply goes out when due", async () => {
    const scheduled: { callback: () => void; ms: number; cancelled: boolean }[] = [];
    const schedule = (callback: () => void, ms: number) => {
      const entry = { callback, ms, cancelled: false };
      scheduled.push(entry);
      return () => {
        entry.cancelled = true;
      };
    };
    const fireDue = () => {
      for (const entry of scheduled.splice(0)) if (!entry.cancelled) entry.callback();
    };
    const settle = async () => {
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    const held = gate();
    const adapter = new FakeAdapter({ respond: async (call) => (call.target.chatId === "slow" ? await held.promise : undefined, { ok: true }) });
    const { add, service } = await setup([adapter], { schedule });
    await add({ text: "slow reply", chatId: "slow" });
    await add({ text: "limited reply", chatId: "limited" });
    adapter.respondNext(async () => (await held.promise, { ok: true }), { ok: false, retryable: true, error: "Too Many Requests", retryAfterMs: 300 });

    try {
      service.start(1000);
      await settle();
      expect(adapter.delivered).toEqual([]);
      fixtures.advance(1000);
      for (let round = 0; round < 3 && !adapter.delivered.includes("limited reply"); round++) {
        fireDue();
        await settle();
      }
      expect(adapter.delivered).toEqual(["limited reply"]);
    } finally {
      held.open();
    }
    await service.stop();
    expect([...adapter.delivered].sort()).toEqual(["limited reply", "slow reply"]);
  });
});
