import { describe, expect, it } from "vitest";
import { DEFAULT_DISCORD_API, restBaseFrom } from "./rest-base.js";

describe("restBaseFrom", () => {
  it("defaults to Discord's own API", () => {
    expect(restBaseFrom(undefined)).toBe(DEFAULT_DISCORD_API);
    expect(restBaseFrom("  ")).toBe(DEFAULT_DISCORD_API);
  });

  it("keeps an override as the base that versioned routes are appended to", () => {
    expect(restBaseFrom("http://127.0.0.1:8080/api")).toBe("http://127.0.0.1:8080/api");
    expect(restBaseFrom("https://proxy.example/discord/api")).toBe("https://proxy.example/discord/api");
  });

  it("adds Discord's /api path to a bare origin", () => {
    expect(restBaseFrom("http://127.0.0.1:8080")).toBe("http://127.0.0.1:8080/api");
    expect(restBaseFrom("http://127.0.0.1:8080/")).toBe("http://127.0.0.1:8080/api");
  });

  it("tolerates a trailing slash or a version segment", () => {
    expect(restBaseFrom("http://127.0.0.1:8080/api/")).toBe("http://127.0.0.1:8080/api");
    expect(restBaseFrom("https://proxy.example/api/v10/")).toBe("https://proxy.example/api");
  });
});
