import { describe, expect, it } from "vitest";
import { IntakeLimiter, type IntakeVerdict } from "./intake-limits.js";

const ada = { platform: "telegram", userId: "7" };

function clock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

function send(limiter: IntakeLimiter, count: number, unanswered = 0, sender = ada): IntakeVerdict[] {
  return Array.from({ length: count }, () => limiter.admit(sender, unanswered));
}

describe("IntakeLimiter: messages per minute", () => {
  it("admits up to the limit within a minute and refuses the rest, telling the sender once", () => {
    const time = clock();
    const limiter = new IntakeLimiter({ ratePerMinute: 20, now: time.now });
    const verdicts = send(limiter, 25);
    expect(verdicts.filter((v) => v.admitted)).toHaveLength(20);
    const refused = verdicts.filter((v) => !v.admitted);
    expect(refused).toHaveLength(5);
    expect(refused.every((v) => !v.admitted && v.reason === "rate_limited")).toBe(true);
    const notices = refused.flatMap((v) => (!v.admitted && v.notice !== undefined ? [v.notice] : []));
    expect(notices).toEqual(["You're sending messages faster than I can answer (limit 20 per minute). I'll skip this one; try again in a moment."]);
  });

  it("slides: a message is admitted again once the oldest admitted one is a minute old", () => {
    const time = clock();
    const limiter = new IntakeLimiter({ ratePerMinute: 2, now: time.now });
    expect(limiter.admit(ada, 0).admitted).toBe(true);
    time.advance(30_000);
    expect(limiter.admit(ada, 0).admitted).toBe(true);
    expect(limiter.admit(ada, 0).admitted).toBe(false);
    time.advance(29_999);
    expect(limiter.admit(ada, 0).admitted).toBe(false);
    time.advance(1);
    expect(limiter.admit(ada, 0).admitted).toBe(true);
    expect(limiter.admit(ada, 0).admitted).toBe(false);
  });

  it("does not count refused messages, so a sender who keeps sending is answered again after a minute", () => {
    const time = clock();
    const limiter = new IntakeLimiter({ ratePerMinute: 3, now: time.now });
    send(limiter, 3);
    for (let i = 0; i < 10; i += 1) {
      time.advance(5_000);
      expect(limiter.admit(ada, 0).admitted).toBe(false);
    }
    time.advance(10_000);
    expect(send(limiter, 4).filter((v) => v.admitted)).toHaveLength(3);
  });

  it("tells a refused sender again only after a minute", () => {
    const time = clock();
    const limiter = new IntakeLimiter({ ratePerMinute: 1, now: time.now });
    limiter.admit(ada, 0);
    expect(limiter.admit(ada, 0)).toMatchObject({ admitted: false, notice: expect.any(String) });
    time.advance(59_999);
    expect(limiter.admit(ada, 0)).toEqual({ admitted: false, reason: "rate_limited" });
    time.advance(1);
    limiter.admit(ada, 0);
    expect(limiter.admit(ada, 0)).toMatchObject({ admitted: false, notice: expect.any(String) });
  });

  it("keeps each person's window on each platform apart", () => {
    const limiter = new IntakeLimiter({ ratePerMinute: 1, now: clock().now });
    expect(limiter.admit(ada, 0).admitted).toBe(true);
    expect(limiter.admit({ platform: "telegram", userId: "8" }, 0).admitted).toBe(true);
    expect(limiter.admit({ platform: "discord", userId: "7" }, 0).admitted).toBe(true);
    expect(limiter.admit(ada, 0).admitted).toBe(false);
  });

  it("remembers a bounded number of senders, forgetting the least recently seen", () => {
    const limiter = new IntakeLimiter({ ratePerMinute: 1, now: clock().now, maxTrackedSenders: 2 });
    limiter.admit(ada, 0);
    limiter.admit({ platform: "telegram", userId: "8" }, 0);
    limiter.admit({ platform: "telegram", userId: "9" }, 0);
    // Ada was forgotten, so her window starts afresh; 9 is still remembered.
    expect(limiter.admit(ada, 0).admitted).toBe(true);
    expect(limiter.admit({ platform: "telegram", userId: "9" }, 0).admitted).toBe(false);
  });
});

describe("IntakeLimiter: waiting messages per session", () => {
  it("refuses a message when the session already has the maximum waiting, with one notice a minute", () => {
    const time = clock();
    const limiter = new IntakeLimiter({ maxQueued: 10, now: time.now });
    expect(limiter.admit(ada, 9).admitted).toBe(true);
    expect(limiter.admit(ada, 10)).toEqual({
      admitted: false,
      reason: "queue_full",
      notice: "You already have 10 messages waiting for an answer. I'll skip this one; send it again once I've caught up.",
    });
    expect(limiter.admit(ada, 11)).toEqual({ admitted: false, reason: "queue_full" });
    expect(limiter.admit(ada, 3).admitted).toBe(true);
  });

  it("does not count a message refused for a full queue towards the rate", () => {
    const limiter = new IntakeLimiter({ ratePerMinute: 2, maxQueued: 1, now: clock().now });
    send(limiter, 5, 1);
    expect(send(limiter, 2, 0).every((v) => v.admitted)).toBe(true);
  });

  it("shares the once-a-minute notice between both reasons", () => {
    const limiter = new IntakeLimiter({ ratePerMinute: 1, maxQueued: 1, now: clock().now });
    limiter.admit(ada, 0);
    expect(limiter.admit(ada, 0)).toMatchObject({ reason: "rate_limited", notice: expect.any(String) });
    expect(limiter.admit(ada, 1)).toEqual({ admitted: false, reason: "queue_full" });
  });
});

describe("IntakeLimiter: off", () => {
  it("admits everything when neither limit is set", () => {
    const limiter = new IntakeLimiter({ now: clock().now });
    expect(limiter.enabled).toBe(false);
    expect(send(limiter, 1000, 500).every((v) => v.admitted)).toBe(true);
  });
});
