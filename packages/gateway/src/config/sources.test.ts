import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readConfigSources, resolveHermesHome } from "./sources.js";

let dir: string;
let cwd: string;
let homeDir: string;
let hermesHome: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-"));
  cwd = path.join(dir, "project");
  homeDir = path.join(dir, "user");
  hermesHome = path.join(dir, "state");
  await Promise.all([fs.mkdir(cwd), fs.mkdir(homeDir), fs.mkdir(hermesHome)]);
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function textsOf(env: Record<string, string | undefined>): Promise<Record<string, string>> {
  const sources = await readConfigSources({ env, cwd, homeDir });
  return Object.fromEntries([...sources.values].map(([name, raw]) => [name, raw.text]));
}

describe("readConfigSources precedence", () => {
  it("prefers the environment over .env over config.yaml, setting by setting", async () => {
    await fs.writeFile(path.join(cwd, ".env"), "HERMES_MODEL=from-dotenv\nHERMES_WORKERS=3\n");
    await fs.writeFile(
      path.join(hermesHome, "config.yaml"),
      "HERMES_MODEL: from-yaml\nHERMES_WORKERS: 2\nHERMES_LOG_LEVEL: debug\n",
    );
    const texts = await textsOf({ HERMES_HOME: hermesHome, HERMES_MODEL: "from-env" });
    expect(texts).toEqual({ HERMES_MODEL: "from-env", HERMES_WORKERS: "3", HERMES_LOG_LEVEL: "debug" });
  });

  it("treats empty and blank values as unset, so they never hide a weaker source", async () => {
    await fs.writeFile(path.join(cwd, ".env"), "HERMES_MODEL=\nHERMES_WORKERS=5\n");
    await fs.writeFile(path.join(hermesHome, "config.yaml"), "HERMES_MODEL: from-yaml\n");
    const texts = await textsOf({ HERMES_HOME: hermesHome, HERMES_MODEL: "", HERMES_WORKERS: "   " });
    expect(texts).toEqual({ HERMES_MODEL: "from-yaml", HERMES_WORKERS: "5" });
  });

  it("trims surrounding whitespace", async () => {
    expect(await textsOf({ HERMES_HOME: hermesHome, HERMES_LOG_LEVEL: "  warn \n" })).toEqual({ HERMES_LOG_LEVEL: "warn" });
  });

  it("only picks up known settings from the environment", async () => {
    const texts = await textsOf({ HERMES_HOME: hermesHome, PATH: "/usr/bin", HERMES_UNKNOWN: "x" });
    expect(texts).toEqual({});
  });

  it("remembers which file a value came from", async () => {
    await fs.writeFile(path.join(cwd, ".env"), "HERMES_WORKERS=3\n");
    await fs.writeFile(path.join(hermesHome, "config.yaml"), "HERMES_LOG_LEVEL: debug\n");
    const sources = await readConfigSources({ env: { HERMES_HOME: hermesHome, HERMES_MODEL: "m" }, cwd, homeDir });
    expect(sources.values.get("HERMES_MODEL")).toEqual({ text: "m" });
    expect(sources.values.get("HERMES_WORKERS")).toEqual({ text: "3", origin: path.join(cwd, ".env") });
    expect(sources.values.get("HERMES_LOG_LEVEL")?.origin).toBe(`${path.join(hermesHome, "config.yaml")} line 1`);
  });

  it("passes on problems with the files", async () => {
    await fs.mkdir(path.join(cwd, ".env"));
    await fs.writeFile(path.join(hermesHome, "config.yaml"), "HERMES_MODEL: [\n");
    const sources = await readConfigSources({ env: { HERMES_HOME: hermesHome }, cwd, homeDir });
    expect(sources.issues.map((issue) => issue.setting)).toEqual([
      path.join(cwd, ".env"),
      path.join(hermesHome, "config.yaml"),
    ]);
  });
});

describe("HERMES_HOME", () => {
  it("defaults to ~/.hermes-gateway under the given home folder", async () => {
    const sources = await readConfigSources({ env: {}, cwd, homeDir });
    expect(sources.home).toBe(path.join(homeDir, ".hermes-gateway"));
  });

  it("can come from .env, and its config.yaml is then read", async () => {
    await fs.writeFile(path.join(cwd, ".env"), `HERMES_HOME=${hermesHome}\n`);
    await fs.writeFile(path.join(hermesHome, "config.yaml"), "HERMES_MODEL: m\n");
    const sources = await readConfigSources({ env: {}, cwd, homeDir });
    expect(sources.home).toBe(hermesHome);
    expect(sources.values.get("HERMES_MODEL")?.text).toBe("m");
  });

  it("from the environment wins over .env", async () => {
    await fs.writeFile(path.join(cwd, ".env"), "HERMES_HOME=/from/dotenv\n");
    const sources = await readConfigSources({ env: { HERMES_HOME: hermesHome }, cwd, homeDir });
    expect(sources.home).toBe(hermesHome);
  });

  it("expands ~ and resolves relative paths against the working folder", () => {
    const options = { cwd, homeDir };
    expect(resolveHermesHome("~", options)).toBe(homeDir);
    expect(resolveHermesHome("~/bots/hermes", options)).toBe(path.join(homeDir, "bots", "hermes"));
    expect(resolveHermesHome("state", options)).toBe(path.join(cwd, "state"));
    expect(resolveHermesHome("../elsewhere", options)).toBe(path.join(dir, "elsewhere"));
    expect(resolveHermesHome("/srv/hermes", options)).toBe("/srv/hermes");
    expect(resolveHermesHome(undefined, options)).toBe(path.join(homeDir, ".hermes-gateway"));
  });

  it("is not itself taken from config.yaml", async () => {
    await fs.writeFile(path.join(hermesHome, "config.yaml"), "HERMES_HOME: /somewhere/else\n");
    const sources = await readConfigSources({ env: { HERMES_HOME: hermesHome }, cwd, homeDir });
    expect(sources.home).toBe(hermesHome);
    expect(sources.warnings).toHaveLength(1);
  });
});
