import { Type } from "@sinclair/typebox";
import { describe, it, expect } from "vitest";
import type { Logger } from "../observability/logger.js";
import { ToolRegistry, toModelTools } from "./registry.js";
import { defineTool, type AnyToolDefinition, type ToolDefinition } from "./types.js";

interface LogEntry {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  fields?: Record<string, unknown>;
}

function recordingLogger(entries: LogEntry[] = []): Logger & { entries: LogEntry[] } {
  const logger: Logger & { entries: LogEntry[] } = {
    entries,
    debug: (message, fields) => entries.push({ level: "debug", message, fields }),
    info: (message, fields) => entries.push({ level: "info", message, fields }),
    warn: (message, fields) => entries.push({ level: "warn", message, fields }),
    error: (message, fields) => entries.push({ level: "error", message, fields }),
    child: () => logger,
  };
  return logger;
}

function tool(name: string, overrides: Partial<ToolDefinition> = {}): AnyToolDefinition {
  return defineTool({
    name,
    description: `The ${name} tool.`,
    parameters: Type.Object({ value: Type.String() }),
    concurrency: "parallel-safe",
    handler: async () => ({ content: name }),
    ...overrides,
  });
}

/** Resolves after a number of microtask turns, so checks can finish in an order unlike registration. */
async function afterTurns(turns: number): Promise<void> {
  for (let i = 0; i < turns; i += 1) await Promise.resolve();
}

const namesOf = (tools: readonly AnyToolDefinition[]): string[] => tools.map((t) => t.name);

describe("ToolRegistry: registration", () => {
  it("registers, finds, lists and unregisters tools", () => {
    const registry = new ToolRegistry();
    const readFile = tool("read_file");
    registry.register(readFile);
    registry.register(tool("web-search"));

    expect(registry.has("read_file")).toBe(true);
    expect(registry.get("read_file")).toBe(readFile);
    expect(registry.names()).toEqual(["read_file", "web-search"]);

    expect(registry.unregister("read_file")).toBe(true);
    expect(registry.unregister("read_file")).toBe(false);
    expect(registry.has("read_file")).toBe(false);
    expect(registry.get("read_file")).toBeUndefined();
    expect(registry.names()).toEqual(["web-search"]);
  });

  it("throws on a duplicate name and keeps the first definition", () => {
    const registry = new ToolRegistry();
    const first = tool("terminal");
    registry.register(first);
    expect(() => registry.register(tool("terminal", { description: "impostor" }))).toThrow(/already registered/);
    expect(registry.get("terminal")).toBe(first);
    expect(registry.names()).toEqual(["terminal"]);
  });

  it("allows a name again after it was unregistered", () => {
    const registry = new ToolRegistry();
    registry.register(tool("think"));
    registry.unregister("think");
    const again = tool("think");
    registry.register(again);
    expect(registry.get("think")).toBe(again);
  });

  it.each(["", "read file", "read.file", "read/file", "tool!", "wörter", "x".repeat(65)])(
    "throws on the invalid name %j",
    (name) => {
      const registry = new ToolRegistry();
      expect(() => registry.register(tool(name))).toThrow(/Invalid tool name/);
      expect(registry.names()).toEqual([]);
    },
  );

  it("accepts letters, digits, _ and - up to 64 characters", () => {
    const registry = new ToolRegistry();
    const longest = "a".repeat(64);
    registry.register(tool("Tool_2-b"));
    registry.register(tool(longest));
    expect(registry.names()).toEqual(["Tool_2-b", longest]);
  });
});

describe("ToolRegistry: availability", () => {
  it("offers tools without a check and tools whose check passes", async () => {
    const registry = new ToolRegistry();
    registry.register(tool("plain"));
    registry.register(tool("sync_yes", { isAvailable: () => true }));
    registry.register(tool("async_yes", { isAvailable: async () => true }));
    expect(namesOf(await registry.available())).toEqual(["plain", "sync_yes", "async_yes"]);
  });

  it("hides tools whose check says no", async () => {
    const registry = new ToolRegistry();
    registry.register(tool("sync_no", { isAvailable: () => false }));
    registry.register(tool("shown"));
    registry.register(tool("async_no", { isAvailable: async () => false }));
    expect(namesOf(await registry.available())).toEqual(["shown"]);
  });

  it("hides a tool whose check throws or rejects, and warns once per error", async () => {
    const logger = recordingLogger();
    const registry = new ToolRegistry({ logger });
    registry.register(tool("broken", { isAvailable: () => { throw new Error("socket missing"); } }));
    registry.register(tool("rejecting", { isAvailable: () => Promise.reject(new Error("timeout")) }));
    registry.register(tool("fine"));

    expect(namesOf(await registry.available())).toEqual(["fine"]);
    expect(namesOf(await registry.available())).toEqual(["fine"]);

    const warnings = logger.entries.filter((e) => e.level === "warn");
    expect(warnings).toHaveLength(2);
    expect(warnings.map((w) => w.fields)).toEqual(
      expect.arrayContaining([
        { tool: "broken", error: "socket missing" },
        { tool: "rejecting", error: "timeout" },
      ]),
    );
    expect(logger.entries.filter((e) => e.level !== "warn")).toEqual([]);
  });

  it("warns again when a check fails with a different error", async () => {
    const logger = recordingLogger();
    const registry = new ToolRegistry({ logger });
    let error = "first failure";
    registry.register(tool("flaky", { isAvailable: () => { throw new Error(error); } }));

    await registry.available();
    await registry.available();
    error = "second failure";
    await registry.available();

    expect(logger.entries.map((e) => e.fields?.["error"])).toEqual(["first failure", "second failure"]);
  });

  it("does not throw when no logger is given and a check fails", async () => {
    const registry = new ToolRegistry();
    registry.register(tool("broken", { isAvailable: () => { throw new Error("nope"); } }));
    expect(await registry.available()).toEqual([]);
  });

  it("re-checks availability on every call", async () => {
    const registry = new ToolRegistry();
    let up = false;
    registry.register(tool("service", { isAvailable: () => up }));
    expect(namesOf(await registry.available())).toEqual([]);
    up = true;
    expect(namesOf(await registry.available())).toEqual(["service"]);
    up = false;
    expect(namesOf(await registry.available())).toEqual([]);
  });

  it("keeps registration order whatever order the checks finish in", async () => {
    const registry = new ToolRegistry();
    registry.register(tool("slow", { isAvailable: async () => { await afterTurns(20); return true; } }));
    registry.register(tool("hidden", { isAvailable: async () => { await afterTurns(5); return false; } }));
    registry.register(tool("fast", { isAvailable: async () => true }));
    registry.register(tool("medium", { isAvailable: async () => { await afterTurns(10); return true; } }));
    expect(namesOf(await registry.available())).toEqual(["slow", "fast", "medium"]);
  });
});

describe("toModelTools", () => {
  it("describes tools to the model by name, description and schema only, in order", () => {
    const a = tool("alpha", { guidance: "internal", timeoutMs: 5, maxResultChars: 10 });
    const b = tool("beta", { parameters: Type.Object({}) });
    expect(toModelTools([a, b])).toEqual([
      { name: "alpha", description: "The alpha tool.", parameters: a.parameters },
      { name: "beta", description: "The beta tool.", parameters: b.parameters },
    ]);
  });

  it("returns nothing for no tools", () => {
    expect(toModelTools([])).toEqual([]);
  });
});
