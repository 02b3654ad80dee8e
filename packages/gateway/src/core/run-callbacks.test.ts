import type { ToolStartEvent } from "@hermes/agent";
import { describe, expect, it } from "vitest";
import { runCallbacks } from "./run-callbacks.js";

const call: ToolStartEvent = { step: 1, toolCallId: "c1", toolName: "terminal", arguments: { command: "rm -rf build" } };
const refused = { block: true, reason: "The user denied this terminal call, so it did not run." } as const;

describe("a run's tool-call observers", () => {
  it("still asks for approval when the tool:before hooks throw, and the refusal stands", async () => {
    const asked: string[] = [];
    const callbacks = runCallbacks({
      hooks: { onToolStart: () => Promise.reject(new Error("hook dispatch broke")) },
      approval: async (event) => (asked.push(event.toolCallId), refused),
    });
    await expect(callbacks.onToolStart?.(call)).resolves.toEqual(refused);
    expect(asked).toEqual(["c1"]);
  });

  it("reports the hooks' failure once the call is approved, and asks nothing when a hook blocks it", async () => {
    const failing = runCallbacks({ hooks: { onToolStart: () => Promise.reject(new Error("hook dispatch broke")) }, approval: async () => undefined });
    await expect(failing.onToolStart?.(call)).rejects.toThrow("hook dispatch broke");

    const asked: string[] = [];
    const blocking = runCallbacks({
      hooks: { onToolStart: async () => ({ block: true, reason: "no shell on Fridays" }) },
      approval: async (event) => (asked.push(event.toolCallId), undefined),
    });
    await expect(blocking.onToolStart?.(call)).resolves.toEqual({ block: true, reason: "no shell on Fridays" });
    expect(asked).toEqual([]);
  });
});
