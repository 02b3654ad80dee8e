import { describe, expect, it } from "vitest";
import { describeInvalidPattern, matchEvent, matchEvents } from "./match-event.js";

describe("matchEvent", () => {
  it("matches exact names exactly", () => {
    expect(matchEvent("agent:start", "agent:start")).toBe("exact");
    expect(matchEvent("agent:start", "agent:end")).toBe("none");
    expect(matchEvent("command:reset", "command:reset")).toBe("exact");
  });

  it("matches family wildcards within the family only", () => {
    expect(matchEvent("agent:*", "agent:step")).toBe("wildcard");
    expect(matchEvent("command:*", "command:model")).toBe("wildcard");
    expect(matchEvent("agent:*", "tool:before")).toBe("none");
    // A family is the whole part before the colon, not a prefix of it.
    expect(matchEvent("tool:*", "toolbox:open")).toBe("none");
  });

  it("matches everything with *", () => {
    expect(matchEvent("*", "gateway:startup")).toBe("wildcard");
    expect(matchEvent("*", "command:anything")).toBe("wildcard");
  });
});

describe("matchEvents", () => {
  it("reports the strongest match among a hook's patterns", () => {
    expect(matchEvents(["*", "message:received"], "message:received")).toBe("exact");
    expect(matchEvents(["session:*", "agent:end"], "session:reset")).toBe("wildcard");
    expect(matchEvents(["session:*"], "agent:end")).toBe("none");
  });
});

describe("describeInvalidPattern", () => {
  it("accepts known names, command names and family wildcards", () => {
    for (const pattern of ["*", "gateway:*", "tool:before", "session:compress", "command:reset", "command:*"]) {
      expect(describeInvalidPattern(pattern)).toBeUndefined();
    }
  });

  it("explains what is wrong with the rest", () => {
    expect(describeInvalidPattern("agent:finish")).toBe('unknown event "agent:finish"');
    expect(describeInvalidPattern("command:")).toBe('unknown event "command:"');
    expect(describeInvalidPattern("agents:*")).toMatch(/^unknown event family "agents"/);
    expect(describeInvalidPattern("agent:st*")).toMatch(/^unsupported wildcard "agent:st\*"/);
  });
});
