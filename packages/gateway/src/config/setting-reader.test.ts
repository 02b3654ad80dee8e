import { describe, expect, it } from "vitest";
import { SettingReader, type RawSetting } from "./setting-reader.js";
import type { SettingName } from "./settings.js";

function readerOf(values: Partial<Record<SettingName, string | RawSetting>>): SettingReader {
  const entries = Object.entries(values).map(([name, value]): [string, RawSetting] => [
    name,
    typeof value === "string" ? { text: value } : (value as RawSetting),
  ]);
  return new SettingReader(new Map(entries));
}

describe("SettingReader.integer", () => {
  it("accepts plain base-10 digits within the range", () => {
    const reader = readerOf({ HERMES_HTTP_PORT: "8080", HERMES_WORKERS: "007" });
    expect(reader.integer("HERMES_HTTP_PORT", { min: 0, max: 65535 })).toBe(8080);
    expect(reader.integer("HERMES_WORKERS", { min: 1, max: 64 })).toBe(7);
    expect(reader.issues).toEqual([]);
  });

  it("returns undefined without an issue when the setting is unset", () => {
    const reader = readerOf({});
    expect(reader.integer("HERMES_HTTP_PORT", { min: 0, max: 65535 })).toBeUndefined();
    expect(reader.issues).toEqual([]);
  });

  it.each(["abc", "-1", "+5", "1.5", "1e3", "0x10", "65536", "8 080"])("rejects %j with the range in the message", (text) => {
    const reader = readerOf({ HERMES_HTTP_PORT: text });
    expect(reader.integer("HERMES_HTTP_PORT", { min: 0, max: 65535 })).toBeUndefined();
    expect(reader.issues).toEqual([
      { setting: "HERMES_HTTP_PORT", message: `must be an integer from 0 to 65535 (got ${JSON.stringify(text)})` },
    ]);
  });

  it("words an open-ended range as a minimum", () => {
    const reader = readerOf({ HERMES_CONTEXT_WINDOW: "512" });
    reader.integer("HERMES_CONTEXT_WINDOW", { min: 1024 });
    expect(reader.issues[0]?.message).toBe('must be an integer of at least 1024 (got "512")');
  });
});

describe("SettingReader.boolean", () => {
  it.each([
    ["true", true],
    ["FALSE", false],
    ["1", true],
    ["0", false],
    ["Yes", true],
    ["no", false],
    ["ON", true],
    ["off", false],
  ])("reads %j as %s", (text, expected) => {
    const reader = readerOf({ HERMES_WEB_ALLOW_PRIVATE: text });
    expect(reader.boolean("HERMES_WEB_ALLOW_PRIVATE")).toBe(expected);
    expect(reader.issues).toEqual([]);
  });

  it("rejects other words", () => {
    const reader = readerOf({ HERMES_WEB_ALLOW_PRIVATE: "maybe" });
    expect(reader.boolean("HERMES_WEB_ALLOW_PRIVATE")).toBeUndefined();
    expect(reader.issues).toEqual([
      { setting: "HERMES_WEB_ALLOW_PRIVATE", message: 'must be true or false (1/0, yes/no and on/off also work) (got "maybe")' },
    ]);
  });
});

describe("SettingReader.choice", () => {
  it("matches case-insensitively and lists the choices when nothing matches", () => {
    const reader = readerOf({ HERMES_LOG_LEVEL: "DEBUG" });
    expect(reader.choice("HERMES_LOG_LEVEL", ["debug", "info"])).toBe("debug");
    const bad = readerOf({ HERMES_LOG_LEVEL: "verbose" });
    expect(bad.choice("HERMES_LOG_LEVEL", ["debug", "info", "warn", "error"])).toBeUndefined();
    expect(bad.issues[0]?.message).toBe('must be one of debug, info, warn, error (got "verbose")');
  });
});

describe("SettingReader.url", () => {
  it("accepts http and https URLs by default and keeps the text as written", () => {
    const reader = readerOf({ HERMES_BASE_URL: "http://127.0.0.1:11434/v1" });
    expect(reader.httpUrl("HERMES_BASE_URL")).toBe("http://127.0.0.1:11434/v1");
  });

  it.each(["ftp://example.org", "localhost:8080", "not a url"])("rejects %j", (text) => {
    const reader = readerOf({ HERMES_BASE_URL: text });
    expect(reader.httpUrl("HERMES_BASE_URL")).toBeUndefined();
    expect(reader.issues[0]?.message).toBe(`must be an http:// or https:// URL (got ${JSON.stringify(text)})`);
  });

  it("names the accepted schemes when they are not http", () => {
    const reader = readerOf({ HERMES_SEARCH_URL: "http://x" });
    expect(reader.url("HERMES_SEARCH_URL", ["redis:", "rediss:"])).toBeUndefined();
    expect(reader.issues[0]?.message).toBe('must be a redis:// or rediss:// URL (got "http://x")');
  });
});

describe("SettingReader messages", () => {
  it("never quotes a secret value, but says which file it came from", () => {
    const reader = readerOf({ REDIS_URL: { text: "http://:hunter2@db", origin: "/srv/.env" } });
    reader.url("REDIS_URL", ["redis:", "rediss:"]);
    expect(reader.issues[0]?.message).toBe("must be a redis:// or rediss:// URL (set in /srv/.env)");
    expect(JSON.stringify(reader.issues)).not.toContain("hunter2");
  });

  it("names the file a bad value came from", () => {
    const reader = readerOf({ HERMES_WORKERS: { text: "many", origin: "/srv/config.yaml line 4" } });
    reader.integer("HERMES_WORKERS", { min: 1, max: 64 });
    expect(reader.issues[0]?.message).toBe('must be an integer from 1 to 64 (got "many" in /srv/config.yaml line 4)');
  });

  it("shortens very long values in messages", () => {
    const reader = readerOf({ HERMES_WORKERS: "9".repeat(200) });
    reader.integer("HERMES_WORKERS", { min: 1, max: 64 });
    expect(reader.issues[0]?.message).toBe(`must be an integer from 1 to 64 (got "${"9".repeat(80)}…")`);
  });
});
