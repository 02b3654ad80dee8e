import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger, type Logger } from "../observability/logger.js";
import type { ToolContext } from "../tools/types.js";
import { MemoryManager } from "./memory-manager.js";
import type { MemoryProviderContext } from "./memory-provider.js";
import { discoverMemoryProviders, userMemoryProvidersDir } from "./plugin-discovery.js";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "test-fixtures", "memory-providers");
const toolContext: ToolContext = { signal: new AbortController().signal, toolCallId: "c", sessionId: "s", logger: silentLogger };

let home: string;
let warned: Array<{ message: string; fields?: Record<string, unknown> }>;

function warningLogger(): Logger {
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (message, fields) => warned.push({ message, fields }),
    error: () => {},
    child: () => logger,
  };
  return logger;
}

const context = (): MemoryProviderContext => ({
  memoryDir: path.join(home, "memory"),
  scopeId: "shared",
  logger: silentLogger,
  sessionId: "s-9",
  notifyWrite: () => {},
});

beforeEach(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-"));
  warned = [];
});

afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

async function writePlugin(name: string, source: string): Promise<string> {
  const dir = userMemoryProvidersDir(home);
  const file = path.join(dir, name);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, source);
  return file;
}

const CLASS_METHODS = `
  async isAvailable() { return true; }
  async initialize() {}
  getToolSchemas() { return []; }
`;
const OBJECT_METHODS = "async isAvailable() { return true; }, async initialize() {}, getToolSchemas() { return []; }";

describe("discoverMemoryProviders", () => {
  it("loads both export styles from the user folder and skips broken plugins with a reason", async () => {
    await writePlugin("a-register.mjs", `export function register(ctx) { return { name: "reg-" + ctx.sessionId, ${OBJECT_METHODS} }; }`);
    await writePlugin("b-class.mjs", `export default class Mine { constructor(ctx) { this.name = "class-" + ctx.sessionId; } ${CLASS_METHODS} }`);
    await writePlugin("c-typed.ts", `export class Typed { readonly name: string = "typed"; ${CLASS_METHODS} }`);
    const syntax = await writePlugin("d-syntax.mjs", "export function register( {");
    const throws = await writePlugin("e-throws.mjs", "export function register() { throw new Error('no config'); }");
    const wrong = await writePlugin("f-wrong.mjs", "export function register() { return { name: 'half' }; }");
    const empty = await writePlugin("g-empty.mjs", "export const version = 1;");
    const nameless = await writePlugin("h-nameless.mjs", `export class NoName { ${CLASS_METHODS} }`);
    await writePlugin("notes.txt", "not a plugin");
    await writePlugin("types.d.ts", "export {};");

    const found = await discoverMemoryProviders({ dirs: [userMemoryProvidersDir(home)], context: context(), logger: warningLogger() });

    expect(found.providers.map((provider) => provider.name)).toEqual(["reg-s-9", "class-s-9", "typed"]);
    expect(found.skipped.map((skip) => skip.file)).toEqual([syntax, throws, wrong, empty, nameless]);
    const reasons = Object.fromEntries(found.skipped.map((skip) => [path.basename(skip.file), skip.reason]));
    expect(reasons["d-syntax.mjs"]).toMatch(/^failed to load/);
    expect(reasons["e-throws.mjs"]).toBe("register() threw: no config");
    expect(reasons["f-wrong.mjs"]).toMatch(/did not return a memory provider/);
    expect(reasons["g-empty.mjs"]).toMatch(/neither register\(\) nor a memory provider class/);
    expect(reasons["h-nameless.mjs"]).toMatch(/missing name/);
    expect(warned.filter((line) => line.message === "memory provider plugin skipped")).toHaveLength(5);
  });

  it("ignores folders that do not exist", async () => {
    const found = await discoverMemoryProviders({ dirs: [path.join(home, "absent"), path.join(home, "file.mjs")], context: context() });
    expect(found).toEqual({ providers: [], skipped: [] });
  });

  it("finds a plugin folder made after an earlier look found none", async () => {
    const dirs = [userMemoryProvidersDir(home)];
    expect(await discoverMemoryProviders({ dirs, context: context() })).toEqual({ providers: [], skipped: [] });
    await writePlugin("late.mjs", `export function register() { return { name: "late", ${OBJECT_METHODS} }; }`);
    const found = await discoverMemoryProviders({ dirs, context: context() });
    expect(found.providers.map((provider) => provider.name)).toEqual(["late"]);
  });

  it("loads the example plugins of the fixture folder: a class module and a TypeScript folder plugin", async () => {
    const found = await discoverMemoryProviders({ dirs: [FIXTURES], context: context() });
    expect(found.skipped).toEqual([]);
    expect(found.providers.map((provider) => provider.name)).toEqual(["journal", "team-notes"]);
    expect(found.providers.map((provider) => provider.getToolSchemas().map((tool) => tool.name))).toEqual([["journal_note"], ["team_notes_search"]]);
  });

  it("skips a second plugin with a name already found, scanning folders in order", async () => {
    await writePlugin("journal.mjs", `export function register() { return { name: "journal", ${OBJECT_METHODS} }; }`);
    const found = await discoverMemoryProviders({ dirs: [FIXTURES, userMemoryProvidersDir(home)], context: context(), logger: warningLogger() });
    expect(found.providers.map((provider) => provider.name)).toEqual(["journal", "team-notes"]);
    expect(found.skipped).toEqual([{ file: path.join(userMemoryProvidersDir(home), "journal.mjs"), reason: 'a provider named "journal" was already found' }]);
  });

  it("feeds a manager that admits the first external plugin, whose tools and hooks then work", async () => {
    const memory = new MemoryManager({ memoryDir: path.join(home, "memory"), sessionId: "s-9", logger: warningLogger() });
    const found = await discoverMemoryProviders({ dirs: [FIXTURES], context: memory.context });
    expect(found.providers.map((provider) => memory.addProvider(provider))).toEqual([true, false]);
    await memory.initialize();
    expect(memory.tools().map((tool) => tool.name)).toEqual(["memory", "journal_note"]);

    await memory.tools()[1]?.handler({ text: "met the accountant" }, toolContext);
    expect(memory.hasChanged()).toBe(true);
    expect(memory.buildMemoryContextBlock()).toContain("## Journal\nmet the accountant");
    expect(await memory.prefetchAll()).toContain("journal for session s-9");
  });
});
