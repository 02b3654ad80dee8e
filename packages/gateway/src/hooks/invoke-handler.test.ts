import { describe, expect, it } from "vitest";
import type { HookEvent } from "./events.js";
import { asBlockDecision, invokeHookHandler, looksLikeBlockAttempt } from "./invoke-handler.js";

const EVENT: HookEvent = { type: "tool:before", timestamp: 5, step: 1, toolName: "terminal", toolCallId: "c1", arguments: { command: "ls" } };

describe("invokeHookHandler", () => {
  it("returns what a sync or async handler returns", async () => {
    expect(await invokeHookHandler(() => "sync", EVENT, 1000)).toEqual({ ok: true, value: "sync" });
    expect(await invokeHookHandler(async () => "async", EVENT, 1000)).toEqual({ ok: true, value: "async" });
  });

  it("turns a throw or a rejection into a failure", async () => {
    const thrown = await invokeHookHandler(() => {
      throw new TypeError("bad input");
    }, EVENT, 1000);
    expect(thrown).toEqual({ ok: false, failure: "threw", error: "TypeError: bad input", thrown: expect.any(TypeError) });
    expect(await invokeHookHandler(() => Promise.reject(new Error("nope")), EVENT, 1000)).toEqual({ ok: false, failure: "threw", error: "nope", thrown: expect.any(Error) });
    expect(await invokeHookHandler(() => Promise.reject("just a string"), EVENT, 1000)).toEqual({ ok: false, failure: "threw", error: "just a string", thrown: "just a string" });
  });

  it("stops waiting for a handler that outlives its timeout", async () => {
    const outcome = await invokeHookHandler(() => new Promise(() => {}), EVENT, 20);
    expect(outcome).toEqual({ ok: false, failure: "timeout", error: "did not finish within 20 ms" });
  });

  it("hands each handler its own copy of the event", async () => {
    await invokeHookHandler((event) => {
      if (event.type === "tool:before") event.arguments.command = "rm -rf /";
    }, EVENT, 1000);
    expect(EVENT.type === "tool:before" && EVENT.arguments.command).toBe("ls");
  });
});

describe("asBlockDecision", () => {
  it("accepts only { block: true, reason } with a reason", () => {
    expect(asBlockDecision({ block: true, reason: "spam" })).toEqual({ block: true, reason: "spam" });
    expect(asBlockDecision({ block: true, reason: "spam", extra: 1 })).toEqual({ block: true, reason: "spam" });
    for (const value of [undefined, null, true, "block", { block: "true", reason: "x" }, { block: false, reason: "x" }, { block: true }, { block: true, reason: "  " }, { block: true, reason: 3 }]) {
      expect(asBlockDecision(value)).toBeUndefined();
    }
  });

  it("spots a block attempt that is malformed", () => {
    expect(looksLikeBlockAttempt({ block: true })).toBe(true);
    expect(looksLikeBlockAttempt({ block: true, reason: "ok" })).toBe(false);
    expect(looksLikeBlockAttempt({ blocked: true })).toBe(false);
  });
});
