import { describe, expect, it } from "vitest";
import { ManualClock } from "../outbound/manual-clock.js";
import { capturingLogger } from "../outbound/testing.js";
import { createStreamPublisher, type StreamPublisherOptions } from "./stream-publisher.js";
import type { StreamUpdate } from "./stream-update.js";

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

function publisher(extra: Partial<StreamPublisherOptions> = {}) {
  const clock = new ManualClock();
  const updates: StreamUpdate[] = [];
  const created = createStreamPublisher({
    inboundId: 7,
    target: { platform: "telegram", chatId: "42", threadId: "t1", replyToMessageId: "m9" },
    publish: (update) => updates.push(update),
    now: () => clock.now(),
    schedule: (callback, ms) => clock.schedule(callback, ms),
    ...extra,
  });
  const { onTextDelta, onToolStart, onStep } = created.callbacks;
  if (!onTextDelta || !onToolStart || !onStep) throw new Error("the publisher must observe deltas, tool starts and steps");
  return { clock, updates, ...created, onTextDelta, onToolStart, onStep };
}

const texts = (updates: StreamUpdate[]) => updates.map((update) => (update.status === undefined ? update.text : `${update.text}|${update.status}`));

describe("createStreamPublisher", () => {
  it("publishes the first text at once, then at most one update per interval with the newest text", async () => {
    const { clock, updates, onTextDelta } = publisher();
    onTextDelta("Hel", { step: 1 });
    expect(updates).toEqual([{ inboundId: 7, platform: "telegram", chatId: "42", threadId: "t1", replyToMessageId: "m9", text: "Hel" }]);
    onTextDelta("lo", { step: 1 });
    onTextDelta(" wor", { step: 1 });
    await clock.advance(249);
    expect(texts(updates)).toEqual(["Hel"]);
    onTextDelta("ld", { step: 1 });
    await clock.advance(1);
    expect(texts(updates)).toEqual(["Hel", "Hello world"]);
    await clock.advance(1_000);
    expect(texts(updates)).toEqual(["Hel", "Hello world"]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("publishes nothing while there is nothing to show", async () => {
    const { clock, updates, onTextDelta, flush } = publisher();
    onTextDelta("", { step: 1 });
    onTextDelta("  \n", { step: 1 });
    flush();
    await clock.advance(1_000);
    expect(updates).toEqual([]);
  });

  it("shows a running tool as the status, never blocking it, and a new step starts from empty text without the status", async () => {
    const { clock, updates, onTextDelta, onToolStart } = publisher();
    onTextDelta("Let me look.", { step: 1 });
    expect(onToolStart({ step: 1, toolCallId: "c1", toolName: "terminal", arguments: { command: "ls" } })).toBeUndefined();
    await clock.advance(250);
    onTextDelta("The answer", { step: 2 });
    await clock.advance(250);
    expect(texts(updates)).toEqual(["Let me look.", "Let me look.|Running terminal…", "The answer"]);
  });

  it("shows a status alone before any text", () => {
    const { updates, onToolStart } = publisher();
    onToolStart({ step: 1, toolCallId: "c1", toolName: "web_search", arguments: {} });
    expect(updates).toEqual([expect.objectContaining({ text: "", status: "Running web_search…" })]);
  });

  it("takes a completed step's text when the provider streamed no deltas, ignoring reports of earlier steps", async () => {
    const { clock, updates, onTextDelta, onStep } = publisher();
    await onStep({ step: 1, text: "Whole step one", toolCalls: [], usage });
    onTextDelta("Step two", { step: 2 });
    await onStep({ step: 1, text: "late report of step one", toolCalls: [], usage });
    await clock.advance(250);
    expect(texts(updates)).toEqual(["Whole step one", "Step two"]);
  });

  it("never shows recalled memory a completed step's raw text still holds, as the final reply does not", async () => {
    const { clock, updates, onTextDelta, onStep } = publisher();
    onTextDelta("Your plan: ", { step: 1 });
    await onStep({ step: 1, text: "Your plan: <memory-context>Bob's diagnosis</memory-context>rest", toolCalls: [], usage });
    await onStep({ step: 2, text: "<memory-context>only recalled</memory-context>", toolCalls: [], usage });
    await clock.advance(250);
    expect(texts(updates)).toEqual(["Your plan: ", "Your plan: rest"]);
  });

  it("flush publishes the newest state now; stop publishes nothing more", async () => {
    const { clock, updates, onTextDelta, flush, stop } = publisher();
    onTextDelta("a", { step: 1 });
    onTextDelta("b", { step: 1 });
    flush();
    expect(texts(updates)).toEqual(["a", "ab"]);
    flush();
    expect(texts(updates)).toEqual(["a", "ab"]);
    onTextDelta("c", { step: 1 });
    stop();
    onTextDelta("d", { step: 1 });
    flush();
    await clock.advance(1_000);
    expect(texts(updates)).toEqual(["a", "ab"]);
  });

  it("settle shows a stopped run's text once more without the status, or says it stopped where only a status showed", async () => {
    const withText = publisher();
    withText.onTextDelta("Let me look.", { step: 1 });
    withText.onToolStart({ step: 1, toolCallId: "c1", toolName: "terminal", arguments: {} });
    await withText.clock.advance(250);
    withText.stop();
    withText.settle();
    withText.settle();
    expect(texts(withText.updates)).toEqual(["Let me look.", "Let me look.|Running terminal…", "Let me look."]);

    const statusOnly = publisher();
    statusOnly.onToolStart({ step: 1, toolCallId: "c1", toolName: "terminal", arguments: {} });
    statusOnly.settle();
    expect(texts(statusOnly.updates)).toEqual(["|Running terminal…", "Stopped."]);

    const plain = publisher();
    plain.onTextDelta("Half an answ", { step: 1 });
    plain.settle();
    const nothing = publisher();
    nothing.settle();
    await plain.clock.advance(1_000);
    expect(texts(plain.updates)).toEqual(["Half an answ"]);
    expect(nothing.updates).toEqual([]);
  });

  it("never throws into the agent when publishing fails", () => {
    const { logger, entries } = capturingLogger();
    const { onTextDelta, updates } = publisher({
      logger,
      publish: () => {
        throw new Error("redis is gone");
      },
    });
    expect(() => onTextDelta("text", { step: 1 })).not.toThrow();
    expect(updates).toEqual([]);
    expect(entries).toEqual([expect.objectContaining({ level: "warn", msg: "could not publish a stream update", inboundId: 7 })]);
  });
});
