import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HookEvent } from "./events.js";
import { HookRegistry } from "./hook-registry.js";
import { makeTempDir, recordingHandler, recordingLogger, removeDir, writeHookFolder, type RecordingLogger } from "./hook-test-fixtures.js";

let root = "";
let bundledDir = "";
let operatorDir = "";
let trace = "";
let logger: RecordingLogger;
beforeEach(async () => {
  root = await makeTempDir();
  bundledDir = path.join(root, "bundled");
  operatorDir = path.join(root, "home", "hooks");
  trace = path.join(root, "trace.txt");
  await mkdir(bundledDir);
  await mkdir(operatorDir, { recursive: true });
  logger = recordingLogger();
});
afterEach(async () => {
  await removeDir(root);
});

const received = (text: string): HookEvent => ({ type: "message:received", timestamp: 1, platform: "telegram", chatId: "7", userId: "42", text });

async function traced(): Promise<string[]> {
  const text = await readFile(trace, "utf8").catch(() => "");
  return text.split("\n").filter((line) => line !== "");
}

function load(): Promise<HookRegistry> {
  return HookRegistry.load({ bundledDir, operatorDir, logger, stateFile: path.join(operatorDir, "state.json") });
}

describe("HookRegistry dispatch", () => {
  it("runs handlers of every module format", async () => {
    const write = `require("node:fs").appendFileSync(${JSON.stringify(trace)}, "HOOK " + event.type + "\\n")`;
    await writeHookFolder(operatorDir, "fmt-mjs", { events: ["agent:start"], handler: recordingHandler(trace, "mjs") });
    await writeHookFolder(operatorDir, "fmt-esm-js", {
      events: ["agent:start"],
      handler: { file: "handler.js", code: recordingHandler(trace, "esm-js").code },
      packageJson: { type: "module" },
    });
    await writeHookFolder(operatorDir, "fmt-cjs", {
      events: ["agent:start"],
      handler: { file: "handler.js", code: `module.exports = async (event) => { ${write.replace("HOOK", "cjs")}; };` },
    });
    await writeHookFolder(operatorDir, "fmt-ts", {
      events: ["agent:start"],
      handler: {
        file: "handler.ts",
        code: `import { appendFileSync } from "node:fs";\nexport default (event: { type: string }): void => { appendFileSync(${JSON.stringify(trace)}, "ts " + event.type + "\\n"); };`,
      },
    });
    const registry = await load();
    expect(registry.list().map((hook) => [hook.name, hook.problem])).toEqual([
      ["fmt-cjs", undefined],
      ["fmt-esm-js", undefined],
      ["fmt-mjs", undefined],
      ["fmt-ts", undefined],
    ]);
    await registry.emit({ type: "agent:start", timestamp: 1, text: "go" });
    expect(await traced()).toEqual(["cjs agent:start", "esm-js agent:start", "mjs agent:start", "ts agent:start"]);
  });

  it("runs exact subscriptions before wildcard ones, by name within each, and only matching hooks", async () => {
    await writeHookFolder(bundledDir, "a-star", { events: ["*"], handler: recordingHandler(trace, "a-star") });
    await writeHookFolder(bundledDir, "b-exact", { events: ["message:received"], handler: recordingHandler(trace, "b-exact") });
    await writeHookFolder(operatorDir, "c-family", { events: ["message:*"], handler: recordingHandler(trace, "c-family") });
    await writeHookFolder(operatorDir, "a-exact", { events: ["session:*", "message:received"], handler: recordingHandler(trace, "a-exact") });
    await writeHookFolder(operatorDir, "other", { events: ["agent:*", "command:reset"], handler: recordingHandler(trace, "other") });
    const registry = await load();
    expect(await registry.emit(received("hi"))).toEqual({ blocked: false });
    expect(await traced()).toEqual(["a-exact message:received", "b-exact message:received", "a-star message:received", "c-family message:received"]);
    await registry.emit({ type: "command:reset", timestamp: 2, command: "reset", args: "" });
    expect((await traced()).slice(4)).toEqual(["other command:reset", "a-star command:reset"]);
  });

  it("logs and skips a handler that throws or rejects, and still runs the others", async () => {
    await writeHookFolder(operatorDir, "a-throws", { events: ["session:start"], handler: { file: "handler.js", code: "module.exports = () => { throw new Error('sync boom'); };" } });
    await writeHookFolder(operatorDir, "b-rejects", { events: ["session:start"], handler: { file: "handler.mjs", code: "export default async () => { throw new RangeError('async boom'); };" } });
    await writeHookFolder(operatorDir, "c-fine", { events: ["session:start"], handler: recordingHandler(trace, "c-fine") });
    const registry = await load();
    expect(await registry.emit({ type: "session:start", timestamp: 1, sessionKey: "agent:main:telegram:dm:7" })).toEqual({ blocked: false });
    expect(await traced()).toEqual(["c-fine session:start"]);
    const failures = logger.records.filter((record) => record.level === "warn").map((record) => record.fields);
    expect(failures).toEqual([
      { hook: "a-throws", eventType: "session:start", cause: "sync boom", durationMs: expect.any(Number), error: expect.objectContaining({ message: "sync boom" }) },
      { hook: "b-rejects", eventType: "session:start", cause: "RangeError: async boom", durationMs: expect.any(Number), error: expect.objectContaining({ name: "RangeError" }) },
    ]);
  });

  it("gives up on a handler that outlives its timeout_ms and carries on", async () => {
    await writeHookFolder(operatorDir, "a-hangs", {
      events: ["message:received"],
      extraManifest: "timeout_ms: 30",
      handler: { file: "handler.mjs", code: "export default () => new Promise(() => {});" },
    });
    await writeHookFolder(operatorDir, "b-after", { events: ["message:received"], handler: recordingHandler(trace, "b-after", "{ block: true, reason: 'late but valid' }") });
    const registry = await load();
    expect(await registry.emit(received("hello"))).toEqual({ blocked: true, reason: "late but valid", hook: "b-after" });
    const timeout = logger.records.find((record) => record.fields.hook === "a-hangs");
    expect(timeout).toMatchObject({ level: "warn", message: 'hook "a-hangs" timed out on message:received: did not finish within 30 ms' });
    expect(timeout?.fields).toMatchObject({ eventType: "message:received", cause: "did not finish within 30 ms" });
  });

  it("stops at the first blocking handler of message:received", async () => {
    await writeHookFolder(operatorDir, "a-allows", { events: ["message:received"], handler: recordingHandler(trace, "a-allows", "{ block: false }") });
    await writeHookFolder(operatorDir, "b-blocks", { events: ["message:received"], handler: recordingHandler(trace, "b-blocks", "{ block: true, reason: 'no spam' }") });
    await writeHookFolder(operatorDir, "c-blocks-too", { events: ["message:received"], handler: recordingHandler(trace, "c-blocks-too", "{ block: true, reason: 'other' }") });
    const registry = await load();
    expect(await registry.emit(received("buy now"))).toEqual({ blocked: true, reason: "no spam", hook: "b-blocks" });
    expect(await traced()).toEqual(["a-allows message:received", "b-blocks message:received"]);
  });

  it("lets tool:before block a tool call", async () => {
    await writeHookFolder(operatorDir, "no-terminal", {
      events: ["tool:before"],
      handler: { file: "handler.mjs", code: "export default (e) => e.toolName === 'terminal' ? { block: true, reason: 'terminal is off' } : undefined;" },
    });
    const registry = await load();
    const call = (toolName: string): HookEvent => ({ type: "tool:before", timestamp: 1, step: 1, toolName, toolCallId: "c1", arguments: {} });
    expect(await registry.emit(call("terminal"))).toEqual({ blocked: true, reason: "terminal is off", hook: "no-terminal" });
    expect(await registry.emit(call("web_search"))).toEqual({ blocked: false });
  });

  it("ignores block results of other events and malformed block results", async () => {
    await writeHookFolder(operatorDir, "blocks-all", { events: ["*"], handler: recordingHandler(trace, "blocks-all", "{ block: true, reason: 'x' }") });
    await writeHookFolder(operatorDir, "a-sloppy", { events: ["message:received"], handler: recordingHandler(trace, "a-sloppy", "{ block: true }") });
    const registry = await load();
    expect(await registry.emit({ type: "message:sent", timestamp: 1, text: "reply" })).toEqual({ blocked: false });
    expect(await registry.emit({ type: "agent:end", timestamp: 1, stopReason: "completed", steps: 1 })).toEqual({ blocked: false });
    expect(await registry.emit(received("hi"))).toEqual({ blocked: true, reason: "x", hook: "blocks-all" });
    expect(await traced()).toEqual(["blocks-all message:sent", "blocks-all agent:end", "a-sloppy message:received", "blocks-all message:received"]);
    expect(logger.records.some((record) => record.message.includes('"a-sloppy" returned a block without a reason'))).toBe(true);
  });

  it("lists invalid hooks with their problem and never runs them", async () => {
    await writeHookFolder(operatorDir, "ok", { handler: recordingHandler(trace, "ok") });
    await writeHookFolder(operatorDir, "not-a-function", { handler: { file: "handler.mjs", code: "export default { run() {} };" } });
    await writeHookFolder(operatorDir, "bad-events", { events: ["message:recieved"] });
    const registry = await load();
    expect(registry.list()).toEqual([
      { name: "bad-events", description: "", events: [], enabled: false, source: "operator", path: path.join(operatorDir, "bad-events"), problem: 'HOOK.yaml: events[0]: unknown event "message:recieved"' },
      {
        name: "not-a-function",
        description: "test hook not-a-function",
        events: ["message:received"],
        enabled: true,
        source: "operator",
        path: path.join(operatorDir, "not-a-function"),
        problem: "handler.mjs: the default export is not a function (got an object)",
      },
      { name: "ok", description: "test hook ok", events: ["message:received"], enabled: true, source: "operator", path: path.join(operatorDir, "ok") },
    ]);
    expect(await registry.emit(received("hi"))).toEqual({ blocked: false });
    expect(await traced()).toEqual(["ok message:received"]);
    expect(logger.records.filter((record) => record.level === "warn").map((record) => record.fields.hook).sort()).toEqual(["bad-events", "not-a-function"]);
  });

  it("runs an operator hook instead of the bundled one of the same name", async () => {
    await writeHookFolder(bundledDir, "greeter", { handler: recordingHandler(trace, "bundled") });
    await writeHookFolder(operatorDir, "greeter", { handler: recordingHandler(trace, "operator") });
    const registry = await load();
    expect(registry.list().map((hook) => [hook.name, hook.source])).toEqual([["greeter", "operator"]]);
    await registry.emit(received("hi"));
    expect(await traced()).toEqual(["operator message:received"]);
  });

  it("loads each handler module once", async () => {
    const code = `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(trace)}, "loaded\\n");\nexport default () => undefined;`;
    await writeHookFolder(operatorDir, "once", { handler: { file: "handler.mjs", code } });
    const registry = await load();
    await registry.emit(received("1"));
    await registry.emit(received("2"));
    await registry.reload();
    await registry.emit(received("3"));
    expect(await traced()).toEqual(["loaded"]);
  });

  it("works with no hook folders at all", async () => {
    const registry = await HookRegistry.load({ bundledDir: path.join(root, "none"), operatorDir: path.join(root, "nothing"), logger });
    expect(registry.list()).toEqual([]);
    expect(await registry.emit(received("hi"))).toEqual({ blocked: false });
  });
});
