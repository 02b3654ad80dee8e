import { describe, it, expect } from "vitest";
import { BudgetTracker, DEFAULT_LOOP_BUDGET } from "./budget.js";

/** A clock the test moves by hand. */
function manualClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

describe("BudgetTracker", () => {
  it("uses the defaults when no limits are given", () => {
    expect(new BudgetTracker(undefined, manualClock().now).limits).toEqual(DEFAULT_LOOP_BUDGET);
    expect(new BudgetTracker({}, manualClock().now).limits).toEqual(DEFAULT_LOOP_BUDGET);
  });

  it("overrides only the limits it is given", () => {
    const tracker = new BudgetTracker({ maxSteps: 3, maxCompactions: 0 }, manualClock().now);
    expect(tracker.limits).toEqual({ ...DEFAULT_LOOP_BUDGET, maxSteps: 3, maxCompactions: 0 });
  });

  it("keeps the default for a limit passed as undefined", () => {
    // Partial<LoopBudget> accepts `{ maxSteps: undefined }` (exactOptionalPropertyTypes is off), e.g. from a config
    // field that was not set; the spread then overwrites the default and `steps >= undefined` is never true.
    const clock = manualClock();
    const tracker = new BudgetTracker({ maxSteps: undefined, maxWallTimeMs: undefined }, clock.now);
    for (let i = 0; i < DEFAULT_LOOP_BUDGET.maxSteps; i += 1) tracker.consumeStep();
    clock.advance(DEFAULT_LOOP_BUDGET.maxWallTimeMs);
    expect(tracker.stepsExhausted()).toBe(true);
    expect(tracker.wallTimeExceeded()).toBe(true);
  });

  it("does not change the shared defaults", () => {
    const before = { ...DEFAULT_LOOP_BUDGET };
    new BudgetTracker({ maxSteps: 1, maxWallTimeMs: 1 }, manualClock().now);
    expect(DEFAULT_LOOP_BUDGET).toEqual(before);
  });

  it("counts steps and reports exhaustion at the limit", () => {
    const tracker = new BudgetTracker({ maxSteps: 2 }, manualClock().now);
    expect(tracker.steps).toBe(0);
    expect(tracker.stepsExhausted()).toBe(false);
    expect(tracker.consumeStep()).toBe(1);
    expect(tracker.stepsExhausted()).toBe(false);
    expect(tracker.consumeStep()).toBe(2);
    expect(tracker.steps).toBe(2);
    expect(tracker.stepsExhausted()).toBe(true);
  });

  it("is exhausted from the start with a step limit of zero", () => {
    expect(new BudgetTracker({ maxSteps: 0 }, manualClock().now).stepsExhausted()).toBe(true);
  });

  it("measures wall time from construction with the injected clock", () => {
    const clock = manualClock();
    const tracker = new BudgetTracker({ maxWallTimeMs: 1_000 }, clock.now);
    expect(tracker.elapsedMs()).toBe(0);
    expect(tracker.wallTimeExceeded()).toBe(false);

    clock.advance(999);
    expect(tracker.elapsedMs()).toBe(999);
    expect(tracker.wallTimeExceeded()).toBe(false);

    clock.advance(1);
    expect(tracker.elapsedMs()).toBe(1_000);
    expect(tracker.wallTimeExceeded()).toBe(true);
  });

  it("reads the start time once, when constructed", () => {
    const clock = manualClock(500);
    clock.advance(10_000);
    const tracker = new BudgetTracker({}, clock.now);
    clock.advance(250);
    expect(tracker.elapsedMs()).toBe(250);
  });

  it("gives the summary after the time budget min(30 s, a tenth of the budget)", () => {
    expect(new BudgetTracker({}, manualClock().now).timeGraceMs()).toBe(30_000);
    expect(new BudgetTracker({ maxWallTimeMs: 60_000 }, manualClock().now).timeGraceMs()).toBe(6_000);
    expect(new BudgetTracker({ maxWallTimeMs: 400 }, manualClock().now).timeGraceMs()).toBe(40);
  });

  it("grants compactions up to the limit and refuses after", () => {
    const tracker = new BudgetTracker({ maxCompactions: 2 }, manualClock().now);
    expect(tracker.tryConsumeCompaction()).toBe(true);
    expect(tracker.tryConsumeCompaction()).toBe(true);
    expect(tracker.tryConsumeCompaction()).toBe(false);
    expect(tracker.tryConsumeCompaction()).toBe(false);
  });

  it("grants no compaction with a limit of zero", () => {
    expect(new BudgetTracker({ maxCompactions: 0 }, manualClock().now).tryConsumeCompaction()).toBe(false);
  });

  it("counts failures per call key", () => {
    const tracker = new BudgetTracker({}, manualClock().now);
    expect(tracker.failuresOf('read_file:{"path":"/a"}')).toBe(0);
    tracker.recordFailure('read_file:{"path":"/a"}');
    tracker.recordFailure('read_file:{"path":"/a"}');
    tracker.recordFailure('read_file:{"path":"/b"}');
    expect(tracker.failuresOf('read_file:{"path":"/a"}')).toBe(2);
    expect(tracker.failuresOf('read_file:{"path":"/b"}')).toBe(1);
    expect(tracker.failuresOf('web_fetch:{"path":"/a"}')).toBe(0);
  });

  it("keeps the kinds of budget separate", () => {
    const clock = manualClock();
    const tracker = new BudgetTracker({ maxSteps: 1, maxCompactions: 1, maxWallTimeMs: 100 }, clock.now);
    tracker.recordFailure("k");
    expect(tracker.tryConsumeCompaction()).toBe(true);
    expect(tracker.stepsExhausted()).toBe(false);
    expect(tracker.wallTimeExceeded()).toBe(false);
    tracker.consumeStep();
    expect(tracker.stepsExhausted()).toBe(true);
    expect(tracker.failuresOf("k")).toBe(1);
  });
});
