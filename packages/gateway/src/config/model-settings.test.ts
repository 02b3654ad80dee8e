import { describe, expect, it } from "vitest";
import { readFallbackSettings, readModelSettings } from "./model-settings.js";
import { SettingReader } from "./setting-reader.js";
import type { SettingName } from "./settings.js";

function readerOf(values: Partial<Record<SettingName, string>>): SettingReader {
  return new SettingReader(new Map(Object.entries(values).map(([name, text]) => [name, { text }])));
}

describe("readModelSettings", () => {
  it("is absent when HERMES_MODEL is unset", () => {
    const reader = readerOf({});
    expect(readModelSettings(reader)).toBeUndefined();
    expect(reader.issues).toEqual([]);
  });

  it("keeps the model name unresolved and defaults the context window to 128000", () => {
    const reader = readerOf({ HERMES_MODEL: "anthropic/claude-sonnet-4-5", HERMES_API_KEY: "sk-test" });
    expect(readModelSettings(reader)).toStrictEqual({
      model: "anthropic/claude-sonnet-4-5",
      apiKey: "sk-test",
      contextWindow: 128000,
    });
  });

  it("reads a custom endpoint with its context window", () => {
    const reader = readerOf({
      HERMES_MODEL: "llama3.1:8b",
      HERMES_BASE_URL: "http://127.0.0.1:11434/v1",
      HERMES_CONTEXT_WINDOW: "32768",
    });
    expect(readModelSettings(reader)).toEqual({
      model: "llama3.1:8b",
      baseUrl: "http://127.0.0.1:11434/v1",
      contextWindow: 32768,
    });
  });

  it("requires HERMES_MODEL with HERMES_BASE_URL", () => {
    const reader = readerOf({ HERMES_BASE_URL: "http://127.0.0.1:8000/v1" });
    expect(readModelSettings(reader)).toBeUndefined();
    expect(reader.issues).toEqual([
      { setting: "HERMES_MODEL", message: "is required with HERMES_BASE_URL: set it to the model id the endpoint serves" },
    ]);
  });

  it("rejects a context window below 1024 and a base URL that is not http(s)", () => {
    const reader = readerOf({ HERMES_MODEL: "m", HERMES_BASE_URL: "file:///tmp/x", HERMES_CONTEXT_WINDOW: "1000" });
    readModelSettings(reader);
    expect(reader.issues).toEqual([
      { setting: "HERMES_BASE_URL", message: 'must be an http:// or https:// URL (got "file:///tmp/x")' },
      { setting: "HERMES_CONTEXT_WINDOW", message: 'must be an integer of at least 1024 (got "1000")' },
    ]);
  });

  it("reads HERMES_MODEL_INPUT for a custom endpoint, rejects anything but text or text,image, and warns without a base URL", () => {
    const custom = { HERMES_MODEL: "llava", HERMES_BASE_URL: "http://127.0.0.1:11434/v1" } as const;
    expect(readModelSettings(readerOf({ ...custom, HERMES_MODEL_INPUT: "image, TEXT" }))?.input).toEqual(["text", "image"]);
    expect(readModelSettings(readerOf({ ...custom, HERMES_MODEL_INPUT: "text" }))?.input).toEqual(["text"]);
    expect(readModelSettings(readerOf(custom))?.input).toBeUndefined();
    for (const value of ["image", "text,audio", "text;image"]) {
      const reader = readerOf({ ...custom, HERMES_MODEL_INPUT: value });
      readModelSettings(reader);
      expect(reader.issues.map((issue) => issue.setting), value).toEqual(["HERMES_MODEL_INPUT"]);
    }
    const rejected = readerOf({ ...custom, HERMES_MODEL_INPUT: "text,audio" });
    readModelSettings(rejected);
    expect(rejected.issues).toEqual([{ setting: "HERMES_MODEL_INPUT", message: 'must be `text` or `text,image` (got "text,audio")' }]);
    const catalogue = readerOf({ HERMES_MODEL: "openai/gpt-4o", HERMES_MODEL_INPUT: "text,image" });
    readModelSettings(catalogue);
    expect(catalogue.warnings).toEqual(["HERMES_MODEL_INPUT is set but HERMES_BASE_URL is not, so it has no effect (a catalogue model's input is known)"]);
  });

  it("warns when an API key is set without a model", () => {
    const reader = readerOf({ HERMES_API_KEY: "sk-test" });
    expect(readModelSettings(reader)).toBeUndefined();
    expect(reader.warnings).toEqual(["HERMES_API_KEY is set but HERMES_MODEL is not, so no model is configured"]);
  });
});

describe("readFallbackSettings", () => {
  it("reads the fallback model with its endpoint and key", () => {
    const reader = readerOf({
      HERMES_FALLBACK_MODEL: "openai/gpt-4o-mini",
      HERMES_FALLBACK_BASE_URL: "https://llm.example.org/v1",
      HERMES_FALLBACK_API_KEY: "fb-key",
    });
    expect(readFallbackSettings(reader)).toStrictEqual({
      model: "openai/gpt-4o-mini",
      baseUrl: "https://llm.example.org/v1",
      apiKey: "fb-key",
    });
  });

  it("is absent when unset, and requires the model with a base URL", () => {
    expect(readFallbackSettings(readerOf({}))).toBeUndefined();
    const reader = readerOf({ HERMES_FALLBACK_BASE_URL: "https://llm.example.org/v1" });
    expect(readFallbackSettings(reader)).toBeUndefined();
    expect(reader.issues.map((issue) => issue.setting)).toEqual(["HERMES_FALLBACK_MODEL"]);
  });
});

describe("HERMES_API and HERMES_FALLBACK_API", () => {
  it("reads the wire protocol of each custom endpoint", () => {
    const reader = readerOf({
      HERMES_MODEL: "claude-local",
      HERMES_BASE_URL: "http://127.0.0.1:8000",
      HERMES_API: "anthropic-messages",
      HERMES_FALLBACK_MODEL: "gpt-local",
      HERMES_FALLBACK_BASE_URL: "http://127.0.0.1:9000/v1",
      HERMES_FALLBACK_API: "OpenAI-Responses",
    });
    expect(readModelSettings(reader)?.api).toBe("anthropic-messages");
    expect(readFallbackSettings(reader)?.api).toBe("openai-responses");
    expect(reader.issues).toEqual([]);
  });

  it("leaves the protocol unset (openai-completions) when not given", () => {
    const reader = readerOf({ HERMES_MODEL: "m", HERMES_BASE_URL: "http://127.0.0.1:8000/v1" });
    expect(readModelSettings(reader)?.api).toBeUndefined();
  });

  it("names the setting and the choices for an unknown protocol", () => {
    const reader = readerOf({ HERMES_MODEL: "m", HERMES_BASE_URL: "http://127.0.0.1:8000/v1", HERMES_API: "grpc" });
    readModelSettings(reader);
    expect(reader.issues).toHaveLength(1);
    expect(reader.issues[0]?.setting).toBe("HERMES_API");
    expect(reader.issues[0]?.message).toContain("openai-completions, openai-responses, anthropic-messages");
  });

  it("warns that the protocol has no effect without a base URL", () => {
    const reader = readerOf({ HERMES_MODEL: "anthropic/claude-sonnet-4-5", HERMES_API: "anthropic-messages" });
    expect(readModelSettings(reader)?.api).toBe("anthropic-messages");
    expect(reader.warnings).toEqual([expect.stringContaining("HERMES_API is set but HERMES_BASE_URL is not")]);
  });
});
