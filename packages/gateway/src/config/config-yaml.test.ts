import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfigYaml, readConfigYaml } from "./config-yaml.js";

const FILE = "/srv/hermes/config.yaml";

function textsOf(yaml: string): Record<string, string> {
  const parsed = parseConfigYaml(yaml, FILE);
  return Object.fromEntries([...parsed.values].map(([name, raw]) => [name, raw.text]));
}

describe("parseConfigYaml", () => {
  it("reads strings, numbers and booleans as the operator wrote them", () => {
    const yaml = [
      "HERMES_MODEL: anthropic/claude-sonnet-4-5",
      "HERMES_HTTP_PORT: 9000",
      "HERMES_WEB_ALLOW_PRIVATE: true",
      "DISCORD_ALLOWED_USERS: 123456789012345678901",
      "HERMES_CONTEXT_WINDOW: 0x1F",
      "TELEGRAM_ALLOWED_USERS: '42'",
      "HERMES_SYSTEM_PROMPT: |",
      "  Answer in French.",
    ].join("\n");
    expect(textsOf(yaml)).toEqual({
      HERMES_MODEL: "anthropic/claude-sonnet-4-5",
      HERMES_HTTP_PORT: "9000",
      HERMES_WEB_ALLOW_PRIVATE: "true",
      // Beyond 2^53: must not be rounded on the way through a JavaScript number.
      DISCORD_ALLOWED_USERS: "123456789012345678901",
      HERMES_CONTEXT_WINDOW: "0x1F",
      TELEGRAM_ALLOWED_USERS: "42",
      HERMES_SYSTEM_PROMPT: "Answer in French.",
    });
  });

  it("records the file and line each value came from", () => {
    const parsed = parseConfigYaml("# settings\nHERMES_WORKERS: 8\n", FILE);
    expect(parsed.values.get("HERMES_WORKERS")).toEqual({ text: "8", origin: `${FILE} line 2` });
  });

  it("treats null and empty values as unset", () => {
    expect(textsOf("HERMES_MODEL:\nHERMES_API_KEY: ''\nHERMES_TOOLS: ~\n")).toEqual({});
  });

  it("treats an empty file or one with only comments as no settings", () => {
    expect(parseConfigYaml("", FILE)).toEqual({ values: new Map(), issues: [], warnings: [] });
    expect(parseConfigYaml("# nothing yet\n", FILE)).toEqual({ values: new Map(), issues: [], warnings: [] });
  });

  it("warns about unknown keys, suggesting the setting that was probably meant", () => {
    const parsed = parseConfigYaml("HERMES_MODLE: x\nhermes_workers: 2\nFAVOURITE_COLOUR: blue\n", FILE);
    expect(parsed.issues).toEqual([]);
    expect(parsed.values.size).toBe(0);
    expect(parsed.warnings).toEqual([
      `${FILE} line 1: unknown setting "HERMES_MODLE" is ignored (did you mean HERMES_MODEL?)`,
      `${FILE} line 2: unknown setting "hermes_workers" is ignored (did you mean HERMES_WORKERS?)`,
      `${FILE} line 3: unknown setting "FAVOURITE_COLOUR" is ignored`,
    ]);
  });

  it("ignores HERMES_HOME with a warning, since it decides where this file is", () => {
    const parsed = parseConfigYaml("HERMES_HOME: /elsewhere\n", FILE);
    expect(parsed.values.size).toBe(0);
    expect(parsed.warnings).toEqual([`${FILE} line 1: HERMES_HOME is ignored here; set it in the environment or .env`]);
  });

  it("reports malformed YAML with the file, line and column, and uses none of its values", () => {
    const parsed = parseConfigYaml("HERMES_MODEL: a\nHERMES_TOOLS: [think\nHERMES_WORKERS: 2\n", FILE);
    expect(parsed.values.size).toBe(0);
    expect(parsed.issues.length).toBeGreaterThan(0);
    expect(parsed.issues[0]?.setting).toBe(FILE);
    expect(parsed.issues[0]?.message).toMatch(/^line 3, column 1: invalid YAML: \S/);
    expect(parsed.issues[0]?.message).not.toContain("\n");
  });

  it("reports a key given twice as malformed", () => {
    const parsed = parseConfigYaml("HERMES_WORKERS: 2\nHERMES_WORKERS: 3\n", FILE);
    expect(parsed.issues).toEqual([{ setting: FILE, message: "line 2, column 1: invalid YAML: Map keys must be unique" }]);
  });

  it("requires a mapping at the top", () => {
    const parsed = parseConfigYaml("- HERMES_MODEL\n- x\n", FILE);
    expect(parsed.issues).toEqual([
      {
        setting: FILE,
        message: 'line 1: must be a mapping of setting names to values, like "HERMES_MODEL: anthropic/claude-sonnet-4-5"',
      },
    ]);
  });

  it("rejects lists and mappings as values, naming the setting, file and line", () => {
    const parsed = parseConfigYaml("HERMES_MODEL: x\nHERMES_TOOLS:\n  - think\nREDIS_URL: { host: a }\n", FILE);
    expect(parsed.issues).toEqual([
      { setting: "HERMES_TOOLS", message: `must be a string, number or boolean in ${FILE} line 2 (got a list)` },
      { setting: "REDIS_URL", message: `must be a string, number or boolean in ${FILE} line 4 (got a mapping)` },
    ]);
    expect(textsOf("HERMES_MODEL: x\n")).toEqual({ HERMES_MODEL: "x" });
  });
});

describe("readConfigYaml", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-"));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("reads the file", async () => {
    const file = path.join(dir, "config.yaml");
    await fs.writeFile(file, "HERMES_LOG_LEVEL: debug\n");
    const parsed = await readConfigYaml(file);
    expect(parsed.values.get("HERMES_LOG_LEVEL")?.text).toBe("debug");
  });

  it("treats a missing file, or a missing home folder, as no settings", async () => {
    expect((await readConfigYaml(path.join(dir, "config.yaml"))).values.size).toBe(0);
    expect((await readConfigYaml(path.join(dir, "absent", "config.yaml"))).issues).toEqual([]);
  });

  it("reports a config.yaml that cannot be read", async () => {
    const file = path.join(dir, "config.yaml");
    await fs.mkdir(file);
    expect((await readConfigYaml(file)).issues).toEqual([{ setting: file, message: "is a folder, not a file" }]);
  });
});
