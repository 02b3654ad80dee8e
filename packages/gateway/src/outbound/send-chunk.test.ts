import { describe, expect, it } from "vitest";
import { retryDelayMs, sendChunk } from "./send-chunk.js";
import { FakeAdapter, capturingLogger } from "./testing.js";

describe("retryDelayMs", () => {
  it("doubles from 500 ms and stops growing at 10 s", () => {
    const middle = () => 0.5;
    expect([0, 1, 2, 3, 4, 5, 10].map((retry) => retryDelayMs(retry, undefined, middle))).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  });

  it("spreads retries by up to a quarter either way, never past 10 s", () => {
    expect(retryDelayMs(1, undefined, () => 0)).toBe(750);
    expect(retryDelayMs(1, undefined, () => 0.999_999)).toBe(1250);
    expect(retryDelayMs(8, undefined, () => 0.999_999)).toBe(10_000);
  });

  it("follows the platform's retry-after, within a minute", () => {
    expect(retryDelayMs(0, 2500, () => 0.5)).toBe(2500);
    expect(retryDelayMs(3, 0, () => 0.5)).toBe(0);
    expect(retryDelayMs(0, 3_600_000, () => 0.5)).toBe(60_000);
    expect(retryDelayMs(0, Number.NaN, () => 0.5)).toBe(500);
  });
});

describe("sendChunk", () => {
  const policy = (sleeps: number[], maxAttempts = 4) => ({ maxAttempts, random: () => 0.5, sleep: async (ms: number) => void sleeps.push(ms) });

  it("returns the last retryable failure after maxAttempts sends", async () => {
    const adapter = new FakeAdapter({ respond: () => ({ ok: false, retryable: true, error: "timeout" }) });
    const sleeps: number[] = [];
    const result = await sendChunk(adapter, { chatId: "1" }, "text", policy(sleeps, 3), capturingLogger().logger);
    expect(result).toEqual({ ok: false, retryable: true, error: "timeout" });
    expect(adapter.sends).toHaveLength(3);
    expect(sleeps).toEqual([500, 1000]);
  });

  it("keeps retrying the plain form when it meets a connection error", async () => {
    const adapter = new FakeAdapter({ formatMarkdown: (text) => `<b>${text}</b>` });
    adapter.respondNext({ ok: false, retryable: false, error: "bad markup" }, { ok: false, retryable: true, error: "timeout" });
    const sleeps: number[] = [];
    const result = await sendChunk(adapter, { chatId: "1" }, "text", policy(sleeps), capturingLogger().logger);
    expect(result.ok).toBe(true);
    expect(adapter.sends.map((call) => call.message.format)).toEqual(["markdown", "plain", "plain"]);
    expect(sleeps).toEqual([500]);
  });
});
