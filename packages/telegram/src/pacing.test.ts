import { describe, expect, it } from "vitest";
import { PlatformPacer } from "@hermes/gateway";
import { TELEGRAM_PACING } from "./pacing.js";

describe("TELEGRAM_PACING", () => {
  it("treats negative chat ids (groups, supergroups, channels) as groups and positive ones as private chats", () => {
    expect(["-5", "-1001234567890", " -7"].map((id) => TELEGRAM_PACING.isGroup?.(id))).toEqual([true, true, true]);
    expect(["7", "123456789"].map((id) => TELEGRAM_PACING.isGroup?.(id))).toEqual([false, false]);
  });

  it("lets a private chat burst 3 messages and no more at once", () => {
    let now = 0;
    const pacer = new PlatformPacer({ platforms: [{ platform: "telegram", pacing: TELEGRAM_PACING }], clock: { now: () => now, schedule: () => () => undefined }, jitterMs: 0 });
    // Best-effort sends (typing) leave the chat's last token for a reply: two of the three go at once.
    expect([1, 2, 3].map(() => pacer.tryAcquire("telegram", "7"))).toEqual([true, true, false]);
    now += 1_000;
    expect([pacer.tryAcquire("telegram", "7"), pacer.tryAcquire("telegram", "7")]).toEqual([true, false]);
  });
});
