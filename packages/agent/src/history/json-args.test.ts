import { describe, it, expect } from "vitest";
import { repairArguments, withoutTrailingCommas } from "./json-args.js";

describe("repairArguments", () => {
  it("accepts a plain object as it is, without marking it repaired", () => {
    const args = { path: "/tmp/a.txt", limit: 10 };
    const outcome = repairArguments(args);
    expect(outcome).toEqual({ ok: true, value: args, repaired: false });
    if (outcome.ok) expect(outcome.value).toBe(args);
  });

  it("accepts an empty object", () => {
    expect(repairArguments({})).toEqual({ ok: true, value: {}, repaired: false });
  });

  it("decodes a JSON string holding an object", () => {
    expect(repairArguments('{"path":"/tmp/a.txt"}')).toEqual({
      ok: true,
      value: { path: "/tmp/a.txt" },
      repaired: true,
    });
  });

  it("decodes a double-encoded object (a JSON string of a JSON string)", () => {
    const doubled = JSON.stringify(JSON.stringify({ query: "weather", count: 3 }));
    expect(repairArguments(doubled)).toEqual({ ok: true, value: { query: "weather", count: 3 }, repaired: true });
  });

  it("decodes an object encoded three times", () => {
    const tripled = JSON.stringify(JSON.stringify(JSON.stringify({ a: 1 })));
    expect(repairArguments(tripled)).toEqual({ ok: true, value: { a: 1 }, repaired: true });
  });

  it("gives up on an object encoded more than three times", () => {
    const quadrupled = JSON.stringify(JSON.stringify(JSON.stringify(JSON.stringify({ a: 1 }))));
    const outcome = repairArguments(quadrupled);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.reason).toBe("arguments decode to a string, not an object");
  });

  it("repairs trailing commas in objects and arrays", () => {
    expect(repairArguments('{"paths": ["a", "b",], "recursive": true, }')).toEqual({
      ok: true,
      value: { paths: ["a", "b"], recursive: true },
      repaired: true,
    });
  });

  it("repairs trailing commas inside a double-encoded object", () => {
    const doubled = JSON.stringify('{"a": 1,}');
    expect(repairArguments(doubled)).toEqual({ ok: true, value: { a: 1 }, repaired: true });
  });

  it("reports text that is not JSON", () => {
    expect(repairArguments("{path: /tmp}")).toEqual({ ok: false, reason: "arguments are not valid JSON" });
    expect(repairArguments("")).toEqual({ ok: false, reason: "arguments are not valid JSON" });
  });

  it("reports JSON that decodes to something other than an object", () => {
    expect(repairArguments("[1,2]")).toEqual({ ok: false, reason: "arguments decode to an array, not an object" });
    expect(repairArguments("null")).toEqual({ ok: false, reason: "arguments decode to null, not an object" });
    expect(repairArguments("42")).toEqual({ ok: false, reason: "arguments decode to a number, not an object" });
    expect(repairArguments("true")).toEqual({ ok: false, reason: "arguments decode to a boolean, not an object" });
  });

  it("reports values that are neither objects nor strings", () => {
    expect(repairArguments(null)).toEqual({ ok: false, reason: "arguments are null, not an object" });
    const missing = repairArguments(undefined);
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.reason).toContain("missing");
    expect(repairArguments([{ a: 1 }])).toEqual({ ok: false, reason: "arguments are an array, not an object" });
    expect(repairArguments(7)).toEqual({ ok: false, reason: "arguments are a number, not an object" });
  });
});

describe("withoutTrailingCommas", () => {
  it("removes a comma before a closing brace or bracket, across whitespace", () => {
    expect(withoutTrailingCommas('{"a": 1,}')).toBe('{"a": 1}');
    expect(withoutTrailingCommas("[1, 2,\n  ]")).toBe("[1, 2\n  ]");
    expect(withoutTrailingCommas('{"a": [1,], "b": {"c": 2,},}')).toBe('{"a": [1], "b": {"c": 2}}');
  });

  it("keeps commas that separate values", () => {
    const text = '{"a": 1, "b": [1, 2, 3]}';
    expect(withoutTrailingCommas(text)).toBe(text);
  });

  it("leaves commas inside string literals alone", () => {
    const text = '{"text": "a,}b,]", "list": ["x,]"]}';
    expect(withoutTrailingCommas(text)).toBe(text);
  });

  it("understands escaped quotes inside strings", () => {
    const text = '{"text": "say \\",}\\" now",}';
    expect(withoutTrailingCommas(text)).toBe('{"text": "say \\",}\\" now"}');
    expect(JSON.parse(withoutTrailingCommas(text))).toEqual({ text: 'say ",}" now' });
  });

  it("understands an escaped backslash right before a closing quote", () => {
    const text = '{"dir": "C:\\\\",}';
    expect(withoutTrailingCommas(text)).toBe('{"dir": "C:\\\\"}');
    expect(JSON.parse(withoutTrailingCommas(text))).toEqual({ dir: "C:\\" });
  });

  it("returns text without commas unchanged", () => {
    expect(withoutTrailingCommas("")).toBe("");
    expect(withoutTrailingCommas("{}")).toBe("{}");
  });
});
