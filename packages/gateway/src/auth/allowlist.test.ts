import { describe, expect, it } from "vitest";
import { isAllowlisted } from "./allowlist.js";

describe("isAllowlisted", () => {
  it("lets nobody in when the list is empty", () => {
    expect(isAllowlisted({ everyone: false, users: [] }, "telegram", "42")).toBe(false);
  });

  it("lets everyone in with a bare *", () => {
    expect(isAllowlisted({ everyone: true, users: [] }, "discord", "7")).toBe(true);
  });

  it("matches a user id on its own platform only", () => {
    const allowed = { everyone: false, users: [{ platform: "telegram", userId: "42" }] };
    expect(isAllowlisted(allowed, "telegram", "42")).toBe(true);
    expect(isAllowlisted(allowed, "telegram", "43")).toBe(false);
    expect(isAllowlisted(allowed, "discord", "42")).toBe(false);
  });

  it("lets everyone on one platform in with platform:*", () => {
    const allowed = { everyone: false, users: [{ platform: "slack", userId: "*" }] };
    expect(isAllowlisted(allowed, "slack", "U123")).toBe(true);
    expect(isAllowlisted(allowed, "telegram", "U123")).toBe(false);
  });

  it("compares platform names without regard to case, user ids exactly", () => {
    const allowed = { everyone: false, users: [{ platform: "Slack", userId: "U1" }] };
    expect(isAllowlisted(allowed, "slack", "U1")).toBe(true);
    expect(isAllowlisted(allowed, "slack", "u1")).toBe(false);
  });
});
