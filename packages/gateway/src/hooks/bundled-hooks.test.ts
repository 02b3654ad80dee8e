import { cp, mkdir, readFile, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUNDLED_HOOKS_DIR as BUNDLED_DIR } from "./bundled-dir.js";
import type { HookEvent } from "./events.js";
import { HookRegistry } from "./hook-registry.js";
import { makeTempDir, recordingLogger, removeDir, type RecordingLogger } from "./hook-test-fixtures.js";

let home = "";
let logger: RecordingLogger;
const savedEnv = { HERMES_HOME: process.env.HERMES_HOME, HERMES_BLOCKED_KEYWORDS: process.env.HERMES_BLOCKED_KEYWORDS };
beforeEach(async () => {
  home = await makeTempDir();
  process.env.HERMES_HOME = home;
  delete process.env.HERMES_BLOCKED_KEYWORDS;
  logger = recordingLogger();
});
afterEach(async () => {
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await removeDir(home);
});

function load(): Promise<HookRegistry> {
  const operatorDir = path.join(home, "hooks");
  return HookRegistry.load({ bundledDir: BUNDLED_DIR, operatorDir, stateFile: path.join(operatorDir, "state.json"), logger });
}

const received = (text: string): HookEvent => ({ type: "message:received", timestamp: 10, platform: "telegram", chatId: "7", userId: "42", text });

describe("bundled hooks", () => {
  it("load without problems", async () => {
    const registry = await load();
    expect(registry.list()).toEqual([
      // Off by default: it writes message text to disk, so the operator opts in.
      expect.objectContaining({ name: "audit-log", events: ["*"], enabled: false, source: "bundled", path: path.join(BUNDLED_DIR, "audit-log") }),
      expect.objectContaining({ name: "keyword-blocker", events: ["message:received"], enabled: true, source: "bundled" }),
    ]);
    expect(registry.list().map((hook) => hook.problem)).toEqual([undefined, undefined]);
    expect(logger.records.filter((record) => record.level !== "debug")).toEqual([]);
  });
});

describe("audit-log", () => {
  it("appends every event as one JSON line to $HERMES_HOME/logs/hooks-audit.jsonl once enabled", async () => {
    await mkdir(path.join(home, "hooks"), { recursive: true });
    await writeFile(path.join(home, "hooks", "state.json"), JSON.stringify({ enabled: ["audit-log"] }));
    const registry = await load();
    const events: HookEvent[] = [
      { type: "gateway:startup", timestamp: 1, platforms: ["telegram"] },
      received("line one\nline two"),
      { type: "tool:after", timestamp: 3, step: 1, toolName: "think", toolCallId: "c", arguments: { thought: "x" }, result: "ok", isError: false, durationMs: 4 },
      { type: "command:reset", timestamp: 4, command: "reset", args: "", sessionKey: "agent:main:telegram:dm:7" },
    ];
    for (const event of events) await registry.emit(event);
    const lines = (await readFile(path.join(home, "logs", "hooks-audit.jsonl"), "utf8")).trimEnd().split("\n");
    expect(lines.map((line) => JSON.parse(line))).toEqual(events);
  });
});

describe("keyword-blocker", () => {
  it("blocks messages containing a keyword from HERMES_BLOCKED_KEYWORDS, ignoring case", async () => {
    process.env.HERMES_BLOCKED_KEYWORDS = "casino, Free Money ,";
    const registry = await load();
    expect(await registry.emit(received("Visit our CASINO today"))).toEqual({ blocked: true, reason: "The message contains a blocked keyword.", hook: "keyword-blocker" });
    expect(await registry.emit(received("get free money now"))).toEqual({ blocked: true, reason: "The message contains a blocked keyword.", hook: "keyword-blocker" });
    expect(await registry.emit(received("What is the weather like?"))).toEqual({ blocked: false });
  });

  it("lets everything through when no keywords are configured", async () => {
    const registry = await load();
    expect(await registry.emit(received("casino free money"))).toEqual({ blocked: false });
  });

  it("reads keywords.txt next to its handler, in an installed copy, edits included", async () => {
    const copy = path.join(home, "hooks", "keyword-blocker");
    await cp(path.join(BUNDLED_DIR, "keyword-blocker"), copy, { recursive: true });
    await writeFile(path.join(copy, "keywords.txt"), "# my list\n\nForbidden Phrase\r\nＳＰＡＭ\n");
    const registry = await load();
    expect(registry.list().find((hook) => hook.name === "keyword-blocker")?.source).toBe("operator");
    expect(await registry.emit(received("this has a forbidden phrase in it"))).toMatchObject({ blocked: true, hook: "keyword-blocker" });
    expect(await registry.emit(received("no spam please"))).toMatchObject({ blocked: true });
    expect(await registry.emit(received("# my list"))).toEqual({ blocked: false });

    await writeFile(path.join(copy, "keywords.txt"), "newword\n");
    expect(await registry.emit(received("forbidden phrase"))).toEqual({ blocked: false });
    expect(await registry.emit(received("a NewWord appears"))).toMatchObject({ blocked: true });
  });

  it("notices edits of keywords.txt made right after a read (even one that puts size and mtime back) and of a list last changed long ago", async () => {
    const copy = path.join(home, "hooks", "keyword-blocker");
    const list = path.join(copy, "keywords.txt");
    await cp(path.join(BUNDLED_DIR, "keyword-blocker"), copy, { recursive: true });
    const stamp = new Date();
    await writeFile(list, "alpha\n");
    await utimes(list, stamp, stamp);
    const registry = await load();
    expect(await registry.emit(received("alpha"))).toMatchObject({ blocked: true });
    // What a second edit within one coarse file-system clock tick looks like to a stat.
    await writeFile(list, "gamma\n");
    await utimes(list, stamp, stamp);
    expect(await registry.emit(received("alpha"))).toEqual({ blocked: false });
    expect(await registry.emit(received("gamma"))).toMatchObject({ blocked: true });

    const anHourAgo = new Date(Date.now() - 3_600_000);
    await utimes(list, anHourAgo, anHourAgo);
    expect(await registry.emit(received("gamma"))).toMatchObject({ blocked: true });
    await writeFile(list, "delta\n");
    expect(await registry.emit(received("gamma"))).toEqual({ blocked: false });
    expect(await registry.emit(received("delta"))).toMatchObject({ blocked: true });
  });

  it("does not block other events", async () => {
    process.env.HERMES_BLOCKED_KEYWORDS = "secret";
    const registry = await load();
    expect(await registry.emit({ type: "tool:before", timestamp: 1, step: 1, toolName: "secret", toolCallId: "c", arguments: { q: "secret" } })).toEqual({ blocked: false });
  });
});
