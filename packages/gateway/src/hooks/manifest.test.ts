import { describe, expect, it } from "vitest";
import { parseHookManifest } from "./manifest.js";

describe("parseHookManifest", () => {
  it("applies the defaults for enabled and timeout_ms", () => {
    const result = parseHookManifest("name: audit\ndescription: Writes events down\nevents: ['*']\n");
    expect(result).toEqual({ ok: true, manifest: { name: "audit", description: "Writes events down", events: ["*"], enabled: true, timeoutMs: 5000 } });
  });

  it("reads enabled, timeout_ms, wildcards and command events, dropping repeated patterns", () => {
    const text = [
      "name: guard",
      "description: Guards tools",
      "events: [tool:before, agent:*, command:reset, command:*, tool:before]",
      "enabled: false",
      "timeout_ms: 1500",
      "author: someone", // extra keys are the manifest's own business
    ].join("\n");
    expect(parseHookManifest(text)).toEqual({
      ok: true,
      manifest: { name: "guard", description: "Guards tools", events: ["tool:before", "agent:*", "command:reset", "command:*"], enabled: false, timeoutMs: 1500 },
    });
  });

  it("names each missing field once", () => {
    expect(parseHookManifest("name: x\n")).toEqual({
      ok: false,
      error: "description: Expected required property; events: Expected required property",
    });
  });

  it("rejects wrong types", () => {
    expect(parseHookManifest("name: x\ndescription: d\nevents: '*'\n")).toMatchObject({ ok: false, error: expect.stringContaining("events") });
    expect(parseHookManifest("name: x\ndescription: d\nevents: ['*']\nenabled: 'yes'\n")).toMatchObject({ ok: false, error: expect.stringContaining("enabled") });
    expect(parseHookManifest("name: x\ndescription: d\nevents: ['*']\ntimeout_ms: 0\n")).toMatchObject({ ok: false, error: expect.stringContaining("timeout_ms") });
    expect(parseHookManifest("name: x\ndescription: d\nevents: []\n")).toMatchObject({ ok: false, error: expect.stringContaining("events") });
  });

  it("rejects names that are not a single safe folder name", () => {
    for (const name of ["../escape", "a/b", ".hidden", "''"]) {
      expect(parseHookManifest(`name: ${name}\ndescription: d\nevents: ['*']\n`)).toMatchObject({ ok: false, error: expect.stringContaining("name") });
    }
  });

  it("rejects unknown events and unsupported wildcards, naming the entry", () => {
    expect(parseHookManifest("name: x\ndescription: d\nevents: [message:recieved]\n")).toEqual({
      ok: false,
      error: 'events[0]: unknown event "message:recieved"',
    });
    expect(parseHookManifest("name: x\ndescription: d\nevents: ['*', 'mesage:*', '*:start']\n")).toEqual({
      ok: false,
      error:
        'events[1]: unknown event family "mesage" (expected one of gateway, message, session, agent, tool, command); ' +
        'events[2]: unsupported wildcard "*:start" (use "*" or "<family>:*", e.g. "agent:*")',
    });
  });

  it("reports YAML syntax errors with their position", () => {
    const result = parseHookManifest("name: x\ndescription: [unclosed\nevents: ['*']\n");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/^invalid YAML at line \d+, column \d+: /);
  });

  it("rejects a manifest that is not a mapping", () => {
    expect(parseHookManifest("- just\n- a list\n")).toEqual({ ok: false, error: "must be a mapping with name, description and events" });
    expect(parseHookManifest("")).toEqual({ ok: false, error: "must be a mapping with name, description and events" });
  });
});
