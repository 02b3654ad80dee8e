import { afterEach, describe, expect, it } from "vitest";
import type { Store } from "@hermes/store";
import { StreamPresenter } from "../streaming/stream-presenter.js";
import { EditingFakeAdapter } from "../streaming/testing.js";
import { deliveryFixtures, RecordingPacer } from "./delivery-testing.js";
import type { StreamedRepliesLike } from "./delivery-types.js";
import { capturingLogger, FakeAdapter } from "./testing.js";

const NOT_FOUND = { ok: false, retryable: false, error: "Bad Request: message to edit not found" } as const;
const APPROVE = [
  { label: "Approve", value: "/approve k3j4h5m6", style: "primary" as const },
  { label: "Deny", value: "/deny k3j4h5m6", style: "danger" as const },
];

const fixtures = deliveryFixtures();
afterEach(() => fixtures.cleanup());

/** The store's stream parts, and the presenter of this process (none unless a test streams). */
function streamParts(store: Store) {
  const finished: number[] = [];
  const cleared: number[] = [];
  let presenter: StreamPresenter | undefined;
  const streams: StreamedRepliesLike = {
    finish: async (inboundId) => {
      finished.push(inboundId);
      return presenter ? presenter.finish(inboundId) : [];
    },
    stored: (inboundId) => store.streamParts.list(inboundId),
    cut: (inboundId) => (presenter ? presenter.cut(inboundId) : store.streamParts.clear(inboundId)),
    clear: async (inboundId) => {
      cleared.push(inboundId);
      await store.streamParts.clear(inboundId);
    },
  };
  const record = (inboundId: number, part: number, messageId: string): Promise<void> => store.streamParts.record(inboundId, part, messageId);
  const presentOn = (adapter: EditingFakeAdapter): StreamPresenter => {
    presenter = new StreamPresenter({ adapterFor: () => adapter, pacer: new RecordingPacer(), parts: store.streamParts, logger: capturingLogger().logger });
    return presenter;
  };
  return { streams, finished, cleared, record, presentOn };
}

async function setup(adapter: EditingFakeAdapter) {
  const { store } = await fixtures.open();
  const parts = streamParts(store);
  const served = fixtures.service(store, [adapter], { streams: parts.streams });
  return { store, ...parts, ...served, inbound: () => inboundId(store) };
}

async function inboundId(store: Store): Promise<number> {
  const { record } = await store.inbound.recordIfNew({ platform: "fake", messageId: `m${Math.random()}`, payload: "{}", status: "answered" });
  return record.id;
}

/** Messages as the chat shows them now, in the order they were sent. */
const chat = (adapter: EditingFakeAdapter): string[] => [...adapter.messages.values()];

describe("delivering a streamed reply", () => {
  it("edits the streamed message into the formatted answer instead of sending it again", async () => {
    const adapter = new EditingFakeAdapter({ formatMarkdown: (markdown) => `<b>${markdown}</b>` });
    const { store, service, presentOn, inbound, finished, cleared } = await setup(adapter);
    const id = await inbound();
    const presenter = presentOn(adapter);
    presenter.update({ inboundId: id, platform: "fake", chatId: "chat-1", replyToMessageId: "q1", text: "The ans" });
    const delivery = await fixtures.add(store, { text: "The answer", inboundId: id, replyToMessageId: "q1" });

    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends.map((call) => call.message)).toEqual([{ text: "The ans", format: "plain" }]);
    expect(adapter.edits).toEqual([{ target: { chatId: "chat-1" }, messageId: "1", message: { text: "<b>The answer</b>", format: "markdown", idempotencyKey: `d${delivery.id}p1` } }]);
    expect(chat(adapter)).toEqual(["<b>The answer</b>"]);
    expect(finished).toEqual([id]);
    expect(cleared).toEqual([id]);
    expect(await store.streamParts.list(id)).toEqual([]);
    expect((await store.deliveries.get(delivery.id))?.status).toBe("sent");
  });

  it("sends the parts of a longer answer beyond the streamed messages", async () => {
    const adapter = new EditingFakeAdapter({ textLimit: 40 });
    const { store, service, inbound, record } = await setup(adapter);
    const id = await inbound();
    await adapter.send({ chatId: "chat-1", replyToMessageId: "q1" }, { text: "first paragraph", format: "plain" });
    await record(id, 0, "1");
    await fixtures.add(store, { text: "first paragraph of the reply\n\nsecond paragraph of the reply", inboundId: id, replyToMessageId: "q1" });

    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.edits.map((call) => [call.messageId, call.message.text])).toEqual([["1", "first paragraph of the reply\n(1/2)"]]);
    expect(adapter.sends.slice(1).map((call) => [call.target, call.message.text])).toEqual([[{ chatId: "chat-1" }, "second paragraph of the reply\n(2/2)"]]);
    expect(chat(adapter)).toEqual(["first paragraph of the reply\n(1/2)", "second paragraph of the reply\n(2/2)"]);
  });

  it("after a restart, edits the messages recorded for the stream and empties those a shorter answer does not need", async () => {
    const adapter = new EditingFakeAdapter();
    const { store, service, inbound, record, finished, cleared } = await setup(adapter);
    const id = await inbound();
    for (const [part, text] of ["streamed part one", "streamed part two"].entries()) {
      const sent = await adapter.send({ chatId: "chat-1" }, { text, format: "plain" });
      if (sent.ok && sent.messageId !== undefined) await record(id, part, sent.messageId);
    }
    await fixtures.add(store, { text: "Short answer", inboundId: id });

    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(finished).toEqual([id]);
    expect(adapter.sends).toHaveLength(2);
    expect(chat(adapter)).toEqual(["Short answer", "⋯"]);
    expect(cleared).toEqual([id]);
    expect(await store.streamParts.list(id)).toEqual([]);
  });

  it("sends the part whose message cannot be edited and the rest as new messages, emptying the streamed ones left", async () => {
    const adapter = new EditingFakeAdapter({ textLimit: 40 });
    const { store, service, inbound, record, entries } = await setup(adapter);
    const id = await inbound();
    await adapter.send({ chatId: "chat-1", replyToMessageId: "q1" }, { text: "streamed one", format: "plain" });
    await adapter.send({ chatId: "chat-1" }, { text: "streamed two", format: "plain" });
    await record(id, 0, "1");
    await record(id, 1, "2");
    // The formatted edit, then the plain-text retry, both find no message.
    adapter.respondNextEdit(NOT_FOUND, NOT_FOUND);
    await fixtures.add(store, { text: "first paragraph of the reply\n\nsecond paragraph of the reply", inboundId: id, replyToMessageId: "q1" });

    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends.slice(2).map((call) => [call.target, call.message.text])).toEqual([
      [{ chatId: "chat-1", replyToMessageId: "q1" }, "first paragraph of the reply\n(1/2)"],
      [{ chatId: "chat-1" }, "second paragraph of the reply\n(2/2)"],
    ]);
    expect(adapter.messages.get("2")).toBe("⋯");
    expect(entries.filter((entry) => entry.msg === "could not edit a streamed message; the rest of the reply goes out as new messages")).toHaveLength(1);
  });

  it("waits out a rate-limited edit like a send and resumes by editing, never sending the answer twice", async () => {
    const adapter = new EditingFakeAdapter();
    const pacer = new RecordingPacer();
    const { store } = await fixtures.open();
    const parts = streamParts(store);
    const { service } = fixtures.service(store, [adapter], { streams: parts.streams, pacer });
    const id = await inboundId(store);
    await adapter.send({ chatId: "chat-1" }, { text: "stream", format: "plain" });
    await parts.record(id, 0, "1");
    adapter.respondNextEdit({ ok: false, retryable: true, error: "Too Many Requests", retryAfterMs: 3000 });
    const delivery = await fixtures.add(store, { text: "Final", inboundId: id });

    expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
    expect(await store.deliveries.get(delivery.id)).toMatchObject({ status: "pending", attempts: 0, nextAttemptAt: fixtures.now() + 3000 });
    expect(pacer.pauses).toEqual([{ platform: "fake", chatId: "chat-1", ms: 3000 }]);
    fixtures.advance(3000);
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends).toHaveLength(1);
    expect(chat(adapter)).toEqual(["Final"]);
  });

  it("puts a delivery's buttons under its last part only, whether sent or edited", async () => {
    const adapter = new EditingFakeAdapter({ textLimit: 40 });
    const { store, service, inbound, record } = await setup(adapter);
    await fixtures.add(store, { text: "first paragraph of the notice\n\nsecond paragraph of it", kind: "notice", buttons: APPROVE });
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.sends.map((call) => call.message.buttons)).toEqual([undefined, APPROVE]);

    const id = await inbound();
    await adapter.send({ chatId: "chat-1" }, { text: "streamed", format: "plain" });
    await record(id, 0, "3");
    await fixtures.add(store, { text: "Done.", inboundId: id, buttons: APPROVE });
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.edits.map((call) => [call.messageId, call.message.buttons])).toEqual([["3", APPROVE]]);
  });

  it("leaves notices to normal sends", async () => {
    const adapter = new EditingFakeAdapter();
    const { store, service, inbound, record, finished } = await setup(adapter);
    const id = await inbound();
    await record(id, 0, "99");
    await fixtures.add(store, { text: "Busy, one moment", kind: "notice", inboundId: id });
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.edits).toEqual([]);
    expect(adapter.delivered).toEqual(["Busy, one moment"]);
    expect(finished).toEqual([]);
  });

  it("sends a reply normally on a platform that cannot edit, whatever was recorded", async () => {
    const adapter = new FakeAdapter();
    const { store } = await fixtures.open();
    const parts = streamParts(store);
    const { service } = fixtures.service(store, [adapter], { streams: parts.streams });
    const id = await inboundId(store);
    await parts.record(id, 0, "99");
    await fixtures.add(store, { text: "The answer", inboundId: id });
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(adapter.delivered).toEqual(["The answer"]);
    expect(parts.finished).toEqual([]);
  });
});
