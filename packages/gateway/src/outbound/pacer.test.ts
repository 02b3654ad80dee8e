import { describe, expect, it } from "vitest";
import type { PacingRules } from "../core/adapter.js";
import { ManualClock } from "./manual-clock.js";
import { PlatformPacer } from "./pacer.js";

const TELEGRAM_LIKE: PacingRules = {
  perChat: { ratePerSecond: 1, burst: 3 },
  perGroup: { ratePerSecond: 20 / 60, burst: 20 },
  global: { ratePerSecond: 30, burst: 30 },
  isGroup: (chatId) => chatId.startsWith("-"),
};

function setup(pacing: PacingRules = TELEGRAM_LIKE, sweepEveryMs?: number, jitterMs = 0) {
  const clock = new ManualClock();
  const pacer = new PlatformPacer({ platforms: [{ platform: "telegram", pacing }, { platform: "discord" }], clock, jitterMs, ...(sweepEveryMs ? { sweepEveryMs } : {}) });
  /** Each grant as "<chat>#<n>@<clock ms>". */
  const grants: string[] = [];
  const send = (chatId: string, label: string, signal?: AbortSignal, platform = "telegram") =>
    pacer.acquire(platform, chatId, signal).then(() => {
      grants.push(`${label}@${clock.now()}`);
    });
  return { clock, pacer, grants, send };
}

describe("PlatformPacer", () => {
  it("lets a chat burst 3 messages, then paces it to one a second, in the order they asked", async () => {
    const { clock, grants, send } = setup();
    const sends = [1, 2, 3, 4, 5].map((n) => send("42", `42#${n}`));
    await clock.advance(5_000);
    await Promise.all(sends);
    expect(grants).toEqual(["42#1@0", "42#2@0", "42#3@0", "42#4@1000", "42#5@2000"]);
  });

  it("keeps headroom for sends that reach the platform late: a burst is shorter, the steady rate the same", async () => {
    const { clock, grants, send } = setup(TELEGRAM_LIKE, undefined, 250);
    const sends = [1, 2, 3, 4, 5].map((n) => send("42", `42#${n}`));
    await clock.advance(5_000);
    await Promise.all(sends);
    expect(grants).toEqual(["42#1@0", "42#2@0", "42#3@250", "42#4@1250", "42#5@2250"]);
  });

  it("holds a group to its group limit on top of the chat limit, without slowing a private chat", async () => {
    const { clock, grants, send } = setup({ ...TELEGRAM_LIKE, perChat: { ratePerSecond: 10, burst: 10 }, perGroup: { ratePerSecond: 1 / 30, burst: 2 } });
    const sends = [send("-100", "g#1"), send("-100", "g#2"), send("-100", "g#3"), send("7", "dm#1"), send("7", "dm#2"), send("7", "dm#3")];
    await clock.advance(31_000);
    await Promise.all(sends);
    expect(grants).toEqual(["g#1@0", "g#2@0", "dm#1@0", "dm#2@0", "dm#3@0", "g#3@30000"]);
  });

  it("shares the bot's global bucket between chats, first come first served, on one timer", async () => {
    const { clock, grants, pacer, send } = setup({ global: { ratePerSecond: 2, burst: 2 } });
    const sends = ["a", "b", "c", "d", "e"].map((chat) => send(chat, chat));
    await clock.advance(0);
    expect(grants).toEqual(["a@0", "b@0"]);
    // Three chats wait for the same bucket: one timer for them all, not one per chat.
    expect(clock.pendingTimers()).toBe(1);
    expect(pacer.tryAcquire("telegram", "z")).toBe(false);
    await clock.advance(1_500);
    await Promise.all(sends);
    expect(grants).toEqual(["a@0", "b@0", "c@500", "d@1000", "e@1500"]);
  });

  it("takes turns between chats for the global bucket when each has several sends waiting", async () => {
    const { clock, grants, send } = setup({ perChat: { ratePerSecond: 100, burst: 5 }, global: { ratePerSecond: 1, burst: 1 } });
    const sends = [send("a", "a1"), send("a", "a2"), send("a", "a3"), send("b", "b1"), send("b", "b2")];
    await clock.advance(4_000);
    await Promise.all(sends);
    expect(grants).toEqual(["a1@0", "a2@1000", "b1@2000", "a3@3000", "b2@4000"]);
  });

  it("keeps a paused chat waiting without delaying another chat's acquire", async () => {
    const { clock, grants, pacer, send } = setup();
    pacer.pause("telegram", "flooded", 30_000);
    const flooded = send("flooded", "flooded#1");
    const other = send("calm", "calm#1");
    await clock.advance(0);
    expect(grants).toEqual(["calm#1@0"]);
    const later = send("calm", "calm#2");
    await clock.advance(1);
    expect(grants).toEqual(["calm#1@0", "calm#2@0"]);
    await clock.advance(30_000);
    await Promise.all([flooded, other, later]);
    expect(grants).toEqual(["calm#1@0", "calm#2@0", "flooded#1@30000"]);
  });

  it("sends a chat that got paused while queued for the global bucket back to wait on its own", async () => {
    const { clock, grants, pacer, send } = setup({ global: { ratePerSecond: 1, burst: 1 } });
    const sends = [send("a", "a"), send("b", "b"), send("c", "c")];
    await clock.advance(0);
    pacer.pause("telegram", "b", 10_000);
    await clock.advance(10_000);
    await Promise.all(sends);
    expect(grants).toEqual(["a@0", "c@1000", "b@10000"]);
  });

  it("pauses every chat of a platform for an empty chat id, and pauses platforms without limits too", async () => {
    const { clock, grants, pacer, send } = setup();
    pacer.pause("telegram", "", 5_000);
    pacer.pause("discord", "9", 2_000);
    const sends = [send("1", "t1"), send("2", "t2"), send("9", "d9", undefined, "discord"), send("8", "d8", undefined, "discord")];
    await clock.advance(6_000);
    await Promise.all(sends);
    expect(grants).toEqual(["d8@0", "d9@2000", "t1@5000", "t2@5000"]);
  });

  it("gives best-effort sends a token only when one is free now, no send waits for it and one is left for a reply", async () => {
    const { clock, pacer, grants, send } = setup();
    expect([1, 2, 3].map(() => pacer.tryAcquire("telegram", "5"))).toEqual([true, true, false]);
    // The typing actions left the chat's last token: the reply goes at once.
    await send("5", "reply");
    expect(grants).toEqual(["reply@0"]);
    expect(pacer.tryAcquire("telegram", "5")).toBe(false);
    const next = send("5", "next");
    await clock.advance(1_000);
    await next;
    // The reply still came at the first free token, and nothing was queued for the typing actions.
    expect(grants).toEqual(["reply@0", "next@1000"]);
    await clock.advance(2_000);
    expect(pacer.tryAcquire("telegram", "5")).toBe(true);
    pacer.pause("telegram", "5", 10_000);
    await clock.advance(2_000);
    expect(pacer.tryAcquire("telegram", "5")).toBe(false);
  });

  it("lets an aborted wait go without its token, so the next send in the chat is not held back", async () => {
    const { clock, grants, send } = setup();
    const abort = new AbortController();
    const burst = [1, 2, 3].map((n) => send("3", `#${n}`));
    const given = send("3", "given-up", abort.signal);
    const next = send("3", "next");
    await clock.advance(500);
    abort.abort(new Error("shutting down"));
    await expect(given).rejects.toThrow("shutting down");
    await clock.advance(500);
    await Promise.all([...burst, next]);
    expect(grants).toEqual(["#1@0", "#2@0", "#3@0", "next@1000"]);
    const already = new AbortController();
    already.abort(new Error("gone"));
    await expect(send("3", "never", already.signal)).rejects.toThrow("gone");
  });

  it("drops idle chats' state, so memory stays bounded by the chats active lately", async () => {
    const { clock, pacer, send } = setup(TELEGRAM_LIKE, 10_000);
    const sends = Array.from({ length: 1_000 }, (_, n) => send(String(n), String(n)));
    await clock.advance(40_000);
    await Promise.all(sends);
    expect(pacer.trackedChats("telegram")).toBe(1_000);
    pacer.pause("telegram", "paused", 1_000);
    expect(pacer.trackedChats("telegram")).toBe(1);
    await clock.advance(10_000);
    await send("fresh", "fresh");
    expect(pacer.trackedChats("telegram")).toBe(1);
  });
});
