import { describe, expect, it } from "vitest";
import { BLOCKABLE_HOOK_EVENT_TYPES, FIXED_HOOK_EVENT_TYPES, isCommandEventType, isHookEventType } from "./events.js";
import { sampleHookEvent } from "./sample-event.js";

describe("hook event types", () => {
  it("knows every lifecycle event of the design and command events by name", () => {
    expect(FIXED_HOOK_EVENT_TYPES).toEqual([
      "gateway:startup",
      "gateway:shutdown",
      "message:received",
      "message:sent",
      "session:start",
      "session:end",
      "session:reset",
      "session:compress",
      "agent:start",
      "agent:step",
      "agent:end",
      "tool:before",
      "tool:after",
    ]);
    expect(isHookEventType("command:reset")).toBe(true);
    expect(isCommandEventType("command:")).toBe(false);
    expect(isCommandEventType("command:two words")).toBe(false);
    expect(isHookEventType("message:edited")).toBe(false);
  });

  it("lets only message:received and tool:before block", () => {
    expect([...BLOCKABLE_HOOK_EVENT_TYPES].sort()).toEqual(["message:received", "tool:before"]);
  });
});

describe("sampleHookEvent", () => {
  it("builds a plain-JSON event of each type with the given timestamp", () => {
    for (const type of [...FIXED_HOOK_EVENT_TYPES, "command:model"] as const) {
      const event = sampleHookEvent(type, 1234);
      expect(event.type).toBe(type);
      expect(event.timestamp).toBe(1234);
      expect(JSON.parse(JSON.stringify(event))).toEqual(event);
    }
  });

  it("fills in the fields a handler of that type reads", () => {
    expect(sampleHookEvent("command:model", 1)).toMatchObject({ command: "model", args: "", sessionKey: expect.any(String) });
    expect(sampleHookEvent("message:received", 1)).toMatchObject({ text: expect.any(String), platform: "cli", chatId: expect.any(String) });
    expect(sampleHookEvent("tool:after", 1)).toMatchObject({ toolName: "web_search", toolCallId: "call-1", isError: false, result: expect.any(String) });
    expect(sampleHookEvent("agent:end", 1)).toMatchObject({ stopReason: "completed", steps: 2 });
  });
});
