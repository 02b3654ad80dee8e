import { describe, expect, it } from "vitest";
import { realPacerClock } from "./pacer-clock.js";

describe("realPacerClock", () => {
  it("a wait longer than a timer can hold (a huge retry_after) does not become a 1 ms timer", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on("warning", onWarning);
    let fired = false;
    try {
      const cancel = realPacerClock.schedule(() => {
        fired = true;
      }, 30 * 24 * 3_600_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
      cancel();
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).not.toContain("TimeoutOverflowWarning");
    expect(fired).toBe(false);
  });
});
