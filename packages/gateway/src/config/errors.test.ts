import { describe, expect, it } from "vitest";
import { formatConfigIssues } from "./errors.js";

describe("formatConfigIssues", () => {
  it("puts a header line above one '- SETTING: message' line per issue", () => {
    const text = formatConfigIssues([
      { setting: "HERMES_HTTP_PORT", message: 'must be an integer from 0 to 65535 (got "abc")' },
      { setting: "HERMES_LOG_LEVEL", message: 'must be one of debug, info, warn, error (got "loud")' },
    ]);
    expect(text.split("\n")).toEqual([
      "Invalid configuration:",
      '- HERMES_HTTP_PORT: must be an integer from 0 to 65535 (got "abc")',
      '- HERMES_LOG_LEVEL: must be one of debug, info, warn, error (got "loud")',
    ]);
  });

  it("indents the continuation of a multi-line message under its issue", () => {
    const text = formatConfigIssues([{ setting: "/srv/config.yaml", message: "first\nsecond" }]);
    expect(text).toBe("Invalid configuration:\n- /srv/config.yaml: first\n  second");
  });
});
