import { describe, expect, it } from "vitest";
import { PlatformPacer } from "@hermes/gateway";
import { SLACK_PACING } from "./pacing.js";

describe("SLACK_PACING", () => {
  it("paces each channel to about one message a second after a burst of 3, channels apart", () => {
    let now = 0;
    const pacer = new PlatformPacer({ platforms: [{ platform: "slack", pacing: SLACK_PACING }], clock: { now: () => now, schedule: () => () => undefined }, jitterMs: 0 });
    // Best-effort sends (typing) leave the channel's last token for a reply: two of the three go at once.
    expect([1, 2, 3].map(() => pacer.tryAcquire("slack", "C1"))).toEqual([true, true, false]);
    expect(pacer.tryAcquire("slack", "C2")).toBe(true);
    now += 1_000;
    expect([pacer.tryAcquire("slack", "C1"), pacer.tryAcquire("slack", "C1")]).toEqual([true, false]);
  });
});
