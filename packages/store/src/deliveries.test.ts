import { afterEach, describe, expect, it } from "vitest";
import { storeFixtures } from "./test-fixtures.js";
import type { NewDelivery } from "./types.js";

const fixtures = storeFixtures();
afterEach(() => fixtures.cleanup());

const notice: NewDelivery = { platform: "telegram", chatId: "42", text: "Your pairing code is ABCD2345", kind: "notice" };

describe("deliveries", () => {
  it("enqueues a pending delivery with every field", async () => {
    const { store } = await fixtures.openNew();
    const { record } = await store.inbound.recordIfNew({ platform: "slack", messageId: "m1", payload: "{}", status: "queued" });
    const delivery = await store.deliveries.enqueue({
      inboundId: record.id,
      sessionKey: "agent:main:slack:channel:C1:T1",
      platform: "slack",
      chatId: "C1",
      threadId: "T1",
      replyToMessageId: "m1",
      text: "Done.",
      kind: "reply",
    });
    expect(delivery).toEqual({
      id: delivery.id,
      inboundId: record.id,
      sessionKey: "agent:main:slack:channel:C1:T1",
      platform: "slack",
      chatId: "C1",
      threadId: "T1",
      replyToMessageId: "m1",
      text: "Done.",
      kind: "reply",
      status: "pending",
      attempts: 0,
      lastError: undefined,
      createdAt: fixtures.now(),
      updatedAt: fixtures.now(),
    });
    const bare = await store.deliveries.enqueue(notice);
    expect(bare).toMatchObject({ inboundId: undefined, sessionKey: undefined, threadId: undefined, replyToMessageId: undefined });
  });

  it("lists pending deliveries oldest first and drops sent ones", async () => {
    const { store } = await fixtures.openNew();
    const first = await store.deliveries.enqueue({ ...notice, text: "one" });
    const second = await store.deliveries.enqueue({ ...notice, text: "two" });
    const third = await store.deliveries.enqueue({ ...notice, text: "three" });
    expect((await store.deliveries.pending()).map((d) => d.id)).toEqual([first.id, second.id, third.id]);
    expect((await store.deliveries.pending(2)).map((d) => d.id)).toEqual([first.id, second.id]);

    await store.deliveries.markSent(first.id);
    expect((await store.deliveries.pending()).map((d) => d.id)).toEqual([second.id, third.id]);
  });

  it("counts pending deliveries in the database, without a limit", async () => {
    const { store } = await fixtures.openNew();
    expect(await store.deliveries.countPending()).toBe(0);
    const sent = await store.deliveries.enqueue(notice);
    const failed = await store.deliveries.enqueue(notice);
    for (let i = 0; i < 120; i++) await store.deliveries.enqueue(notice);
    await store.deliveries.markSent(sent.id);
    await store.deliveries.recordFailure(failed.id, "403 Forbidden", true);
    expect(await store.deliveries.countPending()).toBe(120);
  });

  it("counts failed attempts, keeps retryable ones pending and gives up on final failures", async () => {
    const { store } = await fixtures.openNew();
    const delivery = await store.deliveries.enqueue(notice);
    fixtures.advance(1000);
    await store.deliveries.recordFailure(delivery.id, "429 Too Many Requests", false);
    expect(await store.deliveries.pending()).toEqual([
      { ...delivery, attempts: 1, lastError: "429 Too Many Requests", updatedAt: fixtures.now() },
    ]);
    await store.deliveries.recordFailure(delivery.id, "403 Forbidden: bot was blocked by the user", true);
    expect(await store.deliveries.pending()).toEqual([]);

    const retried = await store.deliveries.enqueue(notice);
    await store.deliveries.recordFailure(retried.id, "timeout", false);
    await store.deliveries.markSent(retried.id);
    expect(await store.deliveries.pending()).toEqual([]);
  });
});
