import { describe, expect, it } from "vitest";
import type { PlatformAdapter } from "../core/adapter.js";
import { RecordingPacer } from "../outbound/delivery-testing.js";
import { ManualClock } from "../outbound/manual-clock.js";
import { PlatformPacer } from "../outbound/pacer.js";
import type { SendPacer } from "../outbound/pacer-types.js";
import { capturingLogger, FakeAdapter, gate } from "../outbound/testing.js";
import { StreamPresenter } from "./stream-presenter.js";
import type { StreamUpdate } from "./stream-update.js";
import { EditingFakeAdapter } from "./testing.js";

interface PresenterSetup {
  /** What store.streamParts holds already, or its failure. */
  stored?: () => Promise<string[]>;
  record?: () => Promise<void>;
  showing?: () => boolean;
  pacer?: (clock: ManualClock) => SendPacer;
}

function presenter(adapter: PlatformAdapter = new EditingFakeAdapter({ platform: "telegram" }), setup: PresenterSetup = {}) {
  const clock = new ManualClock();
  const recording = new RecordingPacer();
  const pacer = setup.pacer?.(clock) ?? recording;
  const recorded: [number, number, string][] = [];
  const { logger, entries } = capturingLogger();
  const created = new StreamPresenter({
    adapterFor: (platform) => (platform === adapter.platform ? adapter : undefined),
    pacer,
    parts: {
      record: async (inboundId, part, messageId) => {
        await setup.record?.();
        recorded.push([inboundId, part, messageId]);
      },
      list: async (inboundId) => (setup.stored ? setup.stored() : recorded.filter(([id]) => id === inboundId).map(([, , messageId]) => messageId)),
      clear: async (inboundId) => {
        for (let i = recorded.length - 1; i >= 0; i -= 1) if (recorded[i]?.[0] === inboundId) recorded.splice(i, 1);
      },
    },
    logger,
    now: () => clock.now(),
    schedule: (callback, ms) => clock.schedule(callback, ms),
    ...(setup.showing ? { showing: setup.showing } : {}),
  });
  const update = (text: string, extra: Partial<StreamUpdate> = {}): void =>
    created.update({ inboundId: 1, platform: adapter.platform, chatId: "42", threadId: "t", replyToMessageId: "m0", text, ...extra });
  return { presenter: created, clock, pacer: recording, recorded, entries, update };
}

const editTexts = (adapter: EditingFakeAdapter) => adapter.edits.map((call) => `${call.messageId}:${call.message.text}`);

describe("StreamPresenter", () => {
  it("sends the first text at once as plain text quoting the message it answers, and records its message", async () => {
    const adapter = new EditingFakeAdapter({ platform: "telegram" });
    const { clock, update, recorded, pacer, presenter: streams } = presenter(adapter);
    update("Hello");
    await clock.advance(0);
    expect(adapter.sends).toEqual([{ target: { chatId: "42", threadId: "t", replyToMessageId: "m0" }, message: { text: "Hello", format: "plain" } }]);
    expect(recorded).toEqual([[1, 0, "1"]]);
    expect(pacer.acquired).toEqual(["telegram/42"]);
    expect(await streams.finish(1)).toEqual(["1"]);
  });

  it("edits at most once a second, with only the newest text", async () => {
    const adapter = new EditingFakeAdapter({ platform: "telegram" });
    const { clock, update, pacer } = presenter(adapter);
    update("a");
    await clock.advance(100);
    update("ab");
    await clock.advance(400);
    update("abc");
    await clock.advance(400);
    update("abcd");
    expect(adapter.edits).toEqual([]);
    await clock.advance(100);
    expect(adapter.edits).toEqual([{ target: { chatId: "42", threadId: "t" }, messageId: "1", message: { text: "abcd", format: "plain" } }]);
    update("abcde");
    await clock.advance(999);
    expect(editTexts(adapter)).toEqual(["1:abcd"]);
    await clock.advance(1);
    expect(editTexts(adapter)).toEqual(["1:abcd", "1:abcde"]);
    update("abcde");
    await clock.advance(5_000);
    expect(editTexts(adapter)).toEqual(["1:abcd", "1:abcde"]);
    expect(pacer.acquired).toEqual(["telegram/42"]);
  });

  it("edits only with tokens to spare, so a reply waiting for the same chat is never held back by them", async () => {
    let paced: PlatformPacer | undefined;
    const adapter = new EditingFakeAdapter({ platform: "telegram" });
    const { clock, update } = presenter(adapter, {
      pacer: (pacerClock) => (paced = new PlatformPacer({ platforms: [{ platform: "telegram", pacing: { perChat: { ratePerSecond: 1 / 60, burst: 3 } } }], clock: pacerClock, jitterMs: 0 })),
    });
    update("a");
    await clock.advance(1_000);
    update("ab");
    await clock.advance(1_000);
    update("abc");
    await clock.advance(3_000);
    expect(adapter.delivered).toEqual(["a"]);
    expect(editTexts(adapter)).toEqual(["1:ab"]);
    let replyGoes = false;
    void paced?.acquire("telegram", "42").then(() => (replyGoes = true));
    await clock.advance(0);
    expect(replyGoes).toBe(true);
  });

  it("shows the status as a last line, or alone before any text, and drops it when the answer arrives", async () => {
    const adapter = new EditingFakeAdapter({ platform: "telegram" });
    const { clock, update } = presenter(adapter);
    update("", { status: "Running web_search…" });
    await clock.advance(0);
    update("Found it", { status: "Running terminal…" });
    await clock.advance(1_000);
    update("The answer");
    await clock.advance(1_000);
    expect(adapter.delivered).toEqual(["⏳ Running web_search…"]);
    expect(editTexts(adapter)).toEqual(["1:Found it\n⏳ Running terminal…", "1:The answer"]);
  });

  it("freezes a message that reaches the platform's limit at a split point and continues in a new one", async () => {
    const adapter = new EditingFakeAdapter({ platform: "telegram", textLimit: 40 });
    const { clock, update, recorded, presenter: streams } = presenter(adapter);
    const first = "First paragraph, short.";
    update("First para");
    await clock.advance(0);
    update(`${first}\n\nSecond paragraph goes on`, { status: "busy" });
    await clock.advance(1_000);
    expect(editTexts(adapter)).toEqual([`1:${first}`]);
    expect(adapter.sends.map((call) => call.target)).toEqual([{ chatId: "42", threadId: "t", replyToMessageId: "m0" }, { chatId: "42", threadId: "t" }]);
    expect(adapter.delivered).toEqual(["First para", "Second paragraph goes on\n⏳ busy"]);
    for (const text of adapter.messages.values()) expect(text.length).toBeLessThanOrEqual(40);
    expect(recorded).toEqual([[1, 0, "1"], [1, 1, "2"]]);
    expect(await streams.finish(1)).toEqual(["1", "2"]);
  });

  it("stops streaming an inbound after a failed edit, logging it once", async () => {
    const adapter = new EditingFakeAdapter({ platform: "telegram" });
    const { clock, update, entries, presenter: streams } = presenter(adapter);
    adapter.respondNextEdit({ ok: false, retryable: false, error: "Bad Request: message to edit not found" });
    update("one");
    await clock.advance(0);
    update("one two");
    await clock.advance(1_000);
    update("one two three");
    await clock.advance(5_000);
    expect(editTexts(adapter)).toEqual(["1:one two"]);
    expect(adapter.sends).toHaveLength(1);
    expect(entries.filter((entry) => entry.level === "warn")).toEqual([
      expect.objectContaining({ msg: "streaming a reply stopped; the answer arrives as a normal message", inboundId: 1, failed: "edit", reason: "Bad Request: message to edit not found" }),
    ]);
    expect(await streams.finish(1)).toEqual(["1"]);
  });

  it("after a cut (a notice of the run goes out) leaves the text above as it is and goes on below, without repeating it", async () => {
    const adapter = new EditingFakeAdapter({ platform: "telegram" });
    const { clock, update, presenter: streams, recorded } = presenter(adapter);
    update("Let me look");
    await clock.advance(0);
    update("Let me look at the files first.");
    // The prompt goes out now: the text above is brought up to date first, and forgotten by the reply.
    await streams.cut(1);
    expect(editTexts(adapter)).toEqual(["1:Let me look at the files first."]);
    expect(recorded).toEqual([]);
    // The same step goes on (its status once the call runs): only what is new shows below.
    update("Let me look at the files first.", { status: "Running terminal…" });
    await clock.advance(0);
    update("All files are fine.");
    await clock.advance(1_000);
    expect(adapter.sends.map((call) => call.message.text)).toEqual(["Let me look", "⏳ Running terminal…"]);
    expect(editTexts(adapter)).toEqual(["1:Let me look at the files first.", "2:All files are fine."]);
    expect(await streams.finish(1)).toEqual(["2"]);
  });

  it("finish waits for a send in flight, returns its message, and ignores later updates", async () => {
    const sending = gate();
    const adapter = new EditingFakeAdapter({
      platform: "telegram",
      respond: async () => {
        await sending.promise;
        return { ok: true, messageId: "77" };
      },
    });
    const { clock, update, presenter: streams } = presenter(adapter);
    update("Hi");
    await clock.advance(0);
    let finished: string[] | undefined;
    const finishing = streams.finish(1).then((ids) => (finished = ids));
    await clock.advance(0);
    expect(finished).toBeUndefined();
    sending.open();
    await finishing;
    expect(finished).toEqual(["77"]);
    update("Hi there");
    await clock.advance(5_000);
    expect(adapter.sends).toHaveLength(1);
    expect(adapter.edits).toEqual([]);
    expect(await streams.finish(1)).toEqual(["77"]);
  });

  it("streams nothing to a platform that cannot edit or that it does not know", async () => {
    const adapter = new FakeAdapter({ platform: "plain" });
    const { clock, update, presenter: streams } = presenter(adapter);
    update("Hello");
    update("Hello", { platform: "elsewhere" });
    await clock.advance(2_000);
    expect(adapter.sends).toEqual([]);
    expect(await streams.finish(1)).toEqual([]);
  });

  it("forgets a stream without updates for ten minutes and does not start it again", async () => {
    const adapter = new EditingFakeAdapter({ platform: "telegram" });
    const { clock, update, presenter: streams } = presenter(adapter);
    update("started");
    await clock.advance(10 * 60_000 + 1);
    update("much later");
    await clock.advance(2_000);
    expect(adapter.sends).toHaveLength(1);
    expect(adapter.edits).toEqual([]);
    expect(await streams.finish(1)).toEqual(["1"]);
  });

  it("a delivery tried again gets the same messages although recording them failed, and none once it is out", async () => {
    const adapter = new EditingFakeAdapter({ platform: "telegram" });
    const { clock, update, entries, presenter: streams } = presenter(adapter, { record: () => Promise.reject(new Error("database is locked")) });
    update("Hello");
    await clock.advance(0);
    expect(entries).toEqual([expect.objectContaining({ level: "warn", msg: "could not record a streamed message; after a restart its reply may be sent again" })]);
    expect(await streams.finish(1)).toEqual(["1"]);
    expect(await streams.finish(1)).toEqual(["1"]);
    streams.release(1);
    expect(await streams.finish(1)).toEqual([]);
  });

  it("goes on in the messages a reply was streamed into before a restart instead of sending a second one", async () => {
    const adapter = new EditingFakeAdapter({ platform: "telegram" });
    const { clock, update, presenter: streams } = presenter(adapter, { stored: async () => ["m-before"] });
    update("Hel", { status: "Running terminal…" });
    await clock.advance(0);
    expect(adapter.sends).toEqual([]);
    await clock.advance(1_000);
    expect(editTexts(adapter)).toEqual(["m-before:Hel\n⏳ Running terminal…"]);
    update("Hello");
    await clock.advance(1_000);
    expect(editTexts(adapter)).toEqual(["m-before:Hel\n⏳ Running terminal…", "m-before:Hello"]);
    expect(adapter.sends).toEqual([]);
    expect(await streams.finish(1)).toEqual(["m-before"]);
  });

  it("shows nothing when it cannot tell whether the reply was streamed before", async () => {
    const adapter = new EditingFakeAdapter({ platform: "telegram" });
    const { clock, update, entries, presenter: streams } = presenter(adapter, { stored: () => Promise.reject(new Error("connection refused")) });
    update("Hello");
    await clock.advance(2_000);
    expect(adapter.sends).toEqual([]);
    expect(entries).toEqual([expect.objectContaining({ level: "warn", msg: "could not read whether a reply was streamed before; the answer arrives as a normal message" })]);
    expect(await streams.finish(1)).toEqual([]);
  });

  it("edits nothing more while it is not the process that shows replies", async () => {
    const adapter = new EditingFakeAdapter({ platform: "telegram" });
    let active = true;
    const { clock, update } = presenter(adapter, { showing: () => active });
    update("one");
    await clock.advance(0);
    update("one two");
    active = false;
    await clock.advance(5_000);
    expect(adapter.delivered).toEqual(["one"]);
    expect(adapter.edits).toEqual([]);
  });

  it("sends nothing more once stopped", async () => {
    const adapter = new EditingFakeAdapter({ platform: "telegram" });
    const { clock, update, presenter: streams } = presenter(adapter);
    update("a");
    await clock.advance(0);
    update("ab");
    await streams.stop();
    update("abc", { inboundId: 2 });
    await clock.advance(5_000);
    expect(adapter.sends).toHaveLength(1);
    expect(adapter.edits).toEqual([]);
  });
});
