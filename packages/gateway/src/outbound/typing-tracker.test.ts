import { describe, expect, it } from "vitest";
import { TypingTracker } from "./typing-tracker.js";
import { FakeAdapter, capturingLogger, gate } from "./testing.js";
import { ManualClock } from "./manual-clock.js";
import { PlatformPacer } from "./pacer.js";

function fakeRepeat() {
  const timers: { callback: () => void; ms: number; stopped: boolean }[] = [];
  const repeat = (callback: () => void, ms: number) => {
    const timer = { callback, ms, stopped: false };
    timers.push(timer);
    return () => {
      timer.stopped = true;
    };
  };
  const tick = () => {
    for (const timer of timers) if (!timer.stopped) timer.callback();
  };
  return { timers, repeat, tick };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

function setup(typing: (chatId: string) => string | undefined = () => undefined) {
  const adapter = new FakeAdapter({ platform: "telegram", typing: (target) => typing(target.chatId) });
  const clock = fakeRepeat();
  const { logger, entries } = capturingLogger();
  const tracker = new TypingTracker({ adapters: new Map([["telegram", adapter]]), logger, intervalMs: 3000, repeat: clock.repeat });
  return { adapter, clock, entries, tracker };
}

describe("TypingTracker", () => {
  it("shows typing at once and again every interval until the key ends", async () => {
    const { adapter, clock, tracker } = setup();
    tracker.begin("run-1", "telegram", { chatId: "42", threadId: "7" });
    expect(adapter.typingCalls).toEqual([{ chatId: "42", threadId: "7" }]);
    expect(clock.timers.map((timer) => timer.ms)).toEqual([3000]);

    await settle();
    clock.tick();
    await settle();
    clock.tick();
    expect(adapter.typingCalls).toHaveLength(3);

    tracker.end("run-1");
    expect(tracker.isActive("run-1")).toBe(false);
    clock.tick();
    expect(adapter.typingCalls).toHaveLength(3);
  });

  it("counts repeated begins and stops only when all have ended", () => {
    const { adapter, clock, tracker } = setup();
    tracker.begin("k", "telegram", { chatId: "1" });
    tracker.begin("k", "telegram", { chatId: "1" });
    expect(adapter.typingCalls).toHaveLength(1);
    expect(clock.timers).toHaveLength(1);
    tracker.end("k");
    expect(tracker.isActive("k")).toBe(true);
    expect(clock.timers[0]?.stopped).toBe(false);
    tracker.end("k");
    expect(clock.timers[0]?.stopped).toBe(true);
    tracker.end("k");
    expect(tracker.isActive("k")).toBe(false);
  });

  it("logs a failing indicator once per key and keeps trying", async () => {
    const { adapter, clock, entries, tracker } = setup((chatId) => (chatId === "blocked" ? "Forbidden" : undefined));
    tracker.begin("a", "telegram", { chatId: "blocked" });
    await settle();
    clock.tick();
    await settle();
    clock.tick();
    await settle();
    expect(adapter.typingCalls).toHaveLength(3);
    const warnings = entries.filter((entry) => entry.msg === "typing indicator failed");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: "warn", key: "a", chatId: "blocked", error: { message: "Forbidden" } });
  });

  it("skips a refresh while the previous one is still under way", async () => {
    const held = gate();
    const adapter = new FakeAdapter({ platform: "slow", typing: () => held.promise.then(() => undefined) });
    const calls = adapter.typingCalls;
    const clock = fakeRepeat();
    const tracker = new TypingTracker({ adapters: new Map([["slow", adapter]]), logger: capturingLogger().logger, repeat: clock.repeat });
    tracker.begin("k", "slow", { chatId: "1" });
    clock.tick();
    clock.tick();
    expect(calls).toHaveLength(1);
    held.open();
    await settle();
    clock.tick();
    expect(calls).toHaveLength(2);
    expect(clock.timers[0]?.ms).toBe(4000);
  });

  it("tracks keys for platforms without typing support, doing nothing", () => {
    const adapter = new FakeAdapter({ platform: "plain" });
    const clock = fakeRepeat();
    const tracker = new TypingTracker({ adapters: new Map([["plain", adapter]]), logger: capturingLogger().logger, repeat: clock.repeat });
    tracker.begin("k", "plain", { chatId: "1" });
    tracker.begin("other", "unknown-platform", { chatId: "1" });
    expect(tracker.isActive("k")).toBe(true);
    expect(clock.timers).toEqual([]);
    tracker.end("k");
    expect(tracker.isActive("k")).toBe(false);
  });

  it("stops every indicator at once", () => {
    const { clock, tracker } = setup();
    tracker.begin("a", "telegram", { chatId: "1" });
    tracker.begin("b", "telegram", { chatId: "2" });
    tracker.stopAll();
    expect(clock.timers.every((timer) => timer.stopped)).toBe(true);
    expect(tracker.isActive("a") || tracker.isActive("b")).toBe(false);
  });

  it("shares the chat's send limits: a refresh without a free token to spare is skipped, not queued, and never takes a waiting reply's turn", async () => {
    const adapter = new FakeAdapter({ platform: "telegram", typing: () => undefined });
    const repeat = fakeRepeat();
    const time = new ManualClock();
    const pacer = new PlatformPacer({ platforms: [{ platform: "telegram", pacing: { perChat: { ratePerSecond: 1, burst: 2 } } }], clock: time, jitterMs: 0 });
    const tracker = new TypingTracker({ adapters: new Map([["telegram", adapter]]), logger: capturingLogger().logger, repeat: repeat.repeat, pacer });
    tracker.begin("k", "telegram", { chatId: "1" });
    await settle();
    await pacer.acquire("telegram", "1");
    const reply = pacer.acquire("telegram", "1").then(() => time.now());
    repeat.tick();
    await settle();
    expect(adapter.typingCalls).toHaveLength(1);
    await time.advance(1_000);
    expect(await reply).toBe(1_000);
    repeat.tick();
    await settle();
    expect(adapter.typingCalls).toHaveLength(1);
    await time.advance(1_000);
    repeat.tick();
    await settle();
    // One token is free, but it is the chat's last: it is left for a reply.
    expect(adapter.typingCalls).toHaveLength(1);
    await time.advance(1_000);
    repeat.tick();
    await settle();
    expect(adapter.typingCalls).toHaveLength(2);
    tracker.stopAll();
  });
});
