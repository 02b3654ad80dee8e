import { ALLOWLIST_PLATFORMS } from "@hermes/gateway";
import { describe, expect, it } from "vitest";
import { PAIRING_GROUP, PAIRING_PLATFORMS } from "../pairing/pairing-spec.js";
import { SESSIONS_GROUP } from "../sessions/sessions-spec.js";
import type { CommandSpec } from "./command-spec.js";
import { parseCommandArgs, parseGroupArgs } from "./parse-command-line.js";

const spec: CommandSpec = {
  name: "demo",
  args: "<name> [more]",
  positionals: [1, 2],
  summary: "a demo",
  options: { json: { type: "boolean", description: "json" }, limit: { type: "string", short: "n", placeholder: "N", description: "how many" } },
};

describe("parseCommandArgs", () => {
  it("returns the options and positionals of a fitting command line", () => {
    expect(parseCommandArgs(["group"], spec, ["x", "--json", "-n", "5"])).toEqual({
      kind: "run",
      command: { path: ["group", "demo"], spec, values: { json: true, limit: "5" }, positionals: ["x"] },
    });
  });

  it("answers --help anywhere before --, ahead of any other problem", () => {
    const help = parseCommandArgs([], spec, ["--unknown", "-h"]);
    expect(help).toMatchObject({ kind: "help", text: expect.stringMatching(/^Usage: hermes demo <name> \[more\] \[--json\] \[--limit N\]/) });
    expect(parseCommandArgs([], spec, ["--", "--help"])).toMatchObject({ kind: "run", command: { positionals: ["--help"] } });
  });

  it("turns parseArgs errors and wrong counts into short usage errors", () => {
    expect(parseCommandArgs([], spec, ["x", "--nope"])).toMatchObject({ kind: "usage-error", message: "Unknown option --nope." });
    expect(parseCommandArgs([], spec, ["x", "--limit"])).toMatchObject({ kind: "usage-error", message: "--limit needs a value." });
    expect(parseCommandArgs([], spec, ["x", "--json=1"])).toMatchObject({ kind: "usage-error", message: "--json takes no value." });
    expect(parseCommandArgs([], spec, [])).toMatchObject({ kind: "usage-error", message: "Missing argument: hermes demo <name> [more]" });
    expect(parseCommandArgs([], spec, ["a", "b", "c"])).toMatchObject({ kind: "usage-error", message: 'Unexpected argument "c".' });
  });
});

describe("parseGroupArgs", () => {
  it("picks the subcommand and shows the group's usage on a wrong line", () => {
    expect(parseGroupArgs(SESSIONS_GROUP, ["show", "abc", "--json"])).toMatchObject({ kind: "run", command: { path: ["sessions", "show"], positionals: ["abc"], values: { json: true } } });
    expect(parseGroupArgs(SESSIONS_GROUP, ["help"])).toMatchObject({ kind: "help", text: expect.stringContaining("Usage: hermes sessions <command>") });
    expect(parseGroupArgs(SESSIONS_GROUP, ["shw"])).toMatchObject({ kind: "usage-error", message: 'Unknown sessions command "shw".', usage: expect.stringContaining("show <session-id> [--json]") });
    expect(parseGroupArgs(SESSIONS_GROUP, ["show"])).toMatchObject({ kind: "usage-error", usage: expect.stringContaining("Usage: hermes sessions <command>") });
    expect(parseGroupArgs(SESSIONS_GROUP, ["\u001b[2J"])).toMatchObject({ message: 'Unknown sessions command "?[2J".' });
  });

  it("lists the same platforms in pairing's help as the gateway accepts", () => {
    expect([...PAIRING_PLATFORMS]).toEqual([...ALLOWLIST_PLATFORMS]);
    expect(PAIRING_GROUP.details).toContain(ALLOWLIST_PLATFORMS.join(", "));
  });
});
