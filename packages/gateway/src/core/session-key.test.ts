import { describe, expect, it } from "vitest";
import { isSharedSession, sessionKeyFor } from "./session-key.js";
import { inbound } from "./testing.js";

describe("sessionKeyFor", () => {
  it("keys a DM by its chat", () => {
    expect(sessionKeyFor(inbound({ chat: { id: "42", type: "dm" }, user: { id: "42" } }))).toBe("agent:main:telegram:dm:42");
  });

  it("gives each user in a group their own session by default", () => {
    const a = sessionKeyFor(inbound({ chat: { id: "-100", type: "group" }, user: { id: "1" } }));
    const b = sessionKeyFor(inbound({ chat: { id: "-100", type: "group" }, user: { id: "2" } }));
    expect(a).toBe("agent:main:telegram:group:-100:1");
    expect(b).toBe("agent:main:telegram:group:-100:2");
  });

  it("shares a thread between its participants by default", () => {
    const message = (user: string) => inbound({ platform: "slack", chat: { id: "C1", type: "channel" }, threadId: "1700.5", user: { id: user } });
    expect(sessionKeyFor(message("U1"))).toBe("agent:main:slack:channel:C1:1700.5");
    expect(sessionKeyFor(message("U2"))).toBe("agent:main:slack:channel:C1:1700.5");
    expect(isSharedSession(message("U1"))).toBe(true);
  });

  it("follows the settings: shared groups, per-user threads", () => {
    const scope = { groupSessions: "shared", threadSessions: "per_user" } as const;
    expect(sessionKeyFor(inbound({ chat: { id: "g", type: "group" }, user: { id: "1" } }), scope)).toBe("agent:main:telegram:group:g");
    expect(sessionKeyFor(inbound({ chat: { id: "g", type: "group" }, threadId: "9", user: { id: "1" } }), scope)).toBe("agent:main:telegram:group:g:9:1");
    expect(isSharedSession(inbound({ chat: { id: "g", type: "group" }, user: { id: "1" } }), scope)).toBe(true);
  });

  it("escapes colons inside ids so keys stay unambiguous", () => {
    expect(sessionKeyFor(inbound({ platform: "console", chat: { id: "a:b", type: "dm" } }))).toBe("agent:main:console:dm:a%3Ab");
  });
});
