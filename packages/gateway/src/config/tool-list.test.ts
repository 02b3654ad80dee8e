import { describe, expect, it } from "vitest";
import { parseToolList } from "./tool-list.js";

const KNOWN = ["read_file", "write_file", "terminal", "think", "web_search", "web_fetch"];
const DEFAULTS = ["think", "web_search", "web_fetch"];

describe("parseToolList", () => {
  it("uses the default tools when unset", () => {
    expect(parseToolList(undefined, KNOWN, DEFAULTS)).toEqual({ ok: true, tools: DEFAULTS });
  });

  it("reads comma-separated names, trimmed, in order, without repeats", () => {
    expect(parseToolList(" terminal, read_file ,terminal,,", KNOWN, DEFAULTS)).toEqual({
      ok: true,
      tools: ["terminal", "read_file"],
    });
  });

  it("expands the entry default to the default tools", () => {
    expect(parseToolList("read_file,default,think", KNOWN, DEFAULTS)).toEqual({
      ok: true,
      tools: ["read_file", "think", "web_search", "web_fetch"],
    });
  });

  it("names every unknown tool and lists the known ones", () => {
    expect(parseToolList("think,shell", KNOWN, DEFAULTS)).toEqual({
      ok: false,
      message: 'unknown tool "shell" (known: default, read_file, write_file, terminal, think, web_search, web_fetch)',
    });
    const many = parseToolList("Shell,browser,Shell", KNOWN, DEFAULTS);
    expect(many.ok ? "" : many.message).toMatch(/^unknown tools "Shell", "browser" \(known: /);
  });
});
