import { describe, expect, it } from "vitest";
import { UNPACED, type SendPacer } from "./pacer-types.js";
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
  const part = { pacer: UNPACED, idempotencyKey: "d1p1" };

  it("returns the last retryable failure after maxAttempts sends", async () => {
    const adapter = new FakeAdapter({ respond: () => ({ ok: false, retryable: true, error: "timeout" }) });
    const sleeps: number[] = [];
    const result = await sendChunk(adapter, { chatId: "1" }, "text", policy(sleeps, 3), part, capturingLogger().logger);
    expect(result).toEqual({ ok: false, retryable: true, error: "timeout" });
    expect(adapter.sends).toHaveLength(3);
    expect(sleeps).toEqual([500, 1000]);
  });

  it("keeps retrying the plain form when it meets a connection error", async () => {
    const adapter = new FakeAdapter({ formatMarkdown: (text) => `<b>${text}</b>` });
    adapter.respondNext({ ok: false, retryable: false, error: "bad markup" }, { ok: false, retryable: true, error: "timeout" });
    const sleeps: number[] = [];
    const result = await sendChunk(adapter, { chatId: "1" }, "text", policy(sleeps), part, capturingLogger().logger);
    expect(result.ok).toBe(true);
    expect(adapter.sends.map((call) => call.message.format)).toEqual(["markdown", "plain", "plain"]);
    expect(sleeps).toEqual([500]);
  });

  it("takes the pacer's tokens before every send and keeps the part's key on each attempt, plain fallback included", async () => {
    const adapter = new FakeAdapter({ formatMarkdown: (text) => `<b>${text}</b>` });
    adapter.respondNext({ ok: false, retryable: true, error: "timeout" }, { ok: false, retryable: false, error: "bad markup" });
    const acquired: string[] = [];
    const pacer: SendPacer = { ...UNPACED, acquire: async (platform, chatId) => void acquired.push(`${platform}/${chatId}`) };
    const result = await sendChunk(adapter, { chatId: "9" }, "text", policy([]), { pacer, idempotencyKey: "d7p2" }, capturingLogger().logger);
    expect(result.ok).toBe(true);
    expect(acquired).toEqual(["fake/9", "fake/9", "fake/9"]);
    expect(adapter.sends.map((call) => call.message)).toEqual([
      { text: "<b>text</b>", format: "markdown", idempotencyKey: "d7p2" },
      { text: "<b>text</b>", format: "markdown", idempotencyKey: "d7p2" },
      { text: "text", format: "plain", idempotencyKey: "d7p2" },
    ]);
  });

  it("returns a rate limit with a retry-after at once instead of waiting it out", async () => {
    const adapter = new FakeAdapter({ respond: () => ({ ok: false, retryable: true, error: "Too Many Requests", retryAfterMs: 60_000 }) });
    const sleeps: number[] = [];
    const result = await sendChunk(adapter, { chatId: "1" }, "text", policy(sleeps), part, capturingLogger().logger);
    expect(result).toMatchObject({ ok: false, retryable: true, retryAfterMs: 60_000 });
    expect(adapter.sends).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("retries an ambiguous failure and warns that the part may show twice unless the platform deduplicates", async () => {
    const ambiguous = { ok: false, retryable: false, error: "timeout after the request was sent", ambiguous: true } as const;
    const atLeastOnce = new FakeAdapter();
    atLeastOnce.respondNext(ambiguous);
    const first = capturingLogger();
    expect((await sendChunk(atLeastOnce, { chatId: "1" }, "text", policy([]), part, first.logger)).ok).toBe(true);
    expect(atLeastOnce.sends.map((call) => call.message.format)).toEqual(["markdown", "markdown"]);
    expect(first.entries).toContainEqual(expect.objectContaining({ level: "warn", msg: expect.stringContaining("may show this part twice"), idempotencyKey: "d1p1" }));

    const deduplicating = Object.assign(new FakeAdapter(), { deliveryGuarantee: "exactly-once" as const });
    deduplicating.respondNext(ambiguous);
    const second = capturingLogger();
    expect((await sendChunk(deduplicating, { chatId: "1" }, "text", policy([]), part, second.logger)).ok).toBe(true);
    expect(second.entries.filter((entry) => entry.level === "warn")).toEqual([]);
  });

  it("sends nothing when the pacer wait is cut short", async () => {
    const adapter = new FakeAdapter();
    const stopping = new AbortController();
    stopping.abort();
    const pacer: SendPacer = { ...UNPACED, acquire: async (_platform, _chat, signal) => signal?.throwIfAborted() };
    const result = await sendChunk(adapter, { chatId: "1" }, "text", policy([]), { pacer, idempotencyKey: "d1p1", signal: stopping.signal }, capturingLogger().logger);
    expect(result).toMatchObject({ ok: false, retryable: true });
    expect(adapter.sends).toEqual([]);
  });
});
