import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { silentLogger } from "@hermes/agent";
import { BUNDLED_HOOKS_DIR, HookRegistry } from "@hermes/gateway";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runHooksCommand, type HooksCommandIo } from "./hooks-command.js";

let root = "";
let bundledDir = "";
let home = "";
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
  bundledDir = path.join(root, "bundled");
  home = path.join(root, "home");
  await mkdir(bundledDir);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function hermesHooks(args: string[], overrides: Partial<HooksCommandIo> = {}): Promise<Run> {
  let stdout = "";
  let stderr = "";
  let clock = 1000;
  const io: HooksCommandIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    bundledDir,
    home,
    logger: silentLogger,
    cwd: root,
    // Each reading of the clock is 7 ms after the last, so "time taken" is known without measuring anything real.
    now: () => (clock += 7),
    ...overrides,
  };
  const code = await runHooksCommand(args, io);
  return { code, stdout, stderr };
}

async function writeHook(parent: string, folder: string, options: { manifest?: string; events?: string; handler?: string; file?: string } = {}): Promise<string> {
  const dir = path.join(parent, folder);
  await mkdir(dir, { recursive: true });
  const manifest = options.manifest ?? `name: ${folder}\ndescription: the ${folder} hook\nevents: ${options.events ?? "[message:received]"}\n`;
  await writeFile(path.join(dir, "HOOK.yaml"), manifest);
  await writeFile(path.join(dir, options.file ?? "handler.mjs"), options.handler ?? "export default async () => undefined;\n");
  return dir;
}

describe("hermes hooks (usage)", () => {
  it("exits 2 with the usage on a wrong command line", async () => {
    for (const args of [[], ["frobnicate"], ["enable"], ["disable", "a", "b"], ["list", "extra"], ["list", "--bogus"], ["install"], ["test"], ["test", "a", "b", "c"]]) {
      const run = await hermesHooks(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toContain("Usage: hermes hooks <command>");
    }
  });

  it("prints the usage on help", async () => {
    const run = await hermesHooks(["help"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toContain("install <folder> [--force]");
  });
});

describe("hermes hooks list", () => {
  it("shows name, state, source, events and problems", async () => {
    await writeHook(bundledDir, "alpha", { events: "['*']" });
    await writeHook(path.join(home, "hooks"), "beta", { events: "[agent:*, tool:before]" });
    await writeHook(path.join(home, "hooks"), "broken", { manifest: "name: broken\nevents: ['*']\n" });
    await writeHook(path.join(home, "hooks"), "no-fn", { handler: "export default 'nope';" });
    await mkdir(path.join(home, "hooks"), { recursive: true });
    await writeFile(path.join(home, "hooks", "state.json"), JSON.stringify({ disabled: ["alpha"] }));
    const run = await hermesHooks(["list"]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toMatch(/^NAME\s+STATE\s+SOURCE\s+EVENTS$/);
    expect(lines[1]).toMatch(/^alpha\s+disabled\s+bundled\s+\*$/);
    expect(lines[2]).toMatch(/^beta\s+enabled\s+operator\s+agent:\*, tool:before$/);
    expect(lines[3]).toMatch(/^broken\s+invalid\s+operator\s+-$/);
    expect(lines[4]).toContain("problem: HOOK.yaml: description");
    expect(run.stdout).toMatch(/no-fn\s+broken\s+operator\s+message:received\n\s+problem: handler\.mjs: the default export is not a function \(got string\)/);
  });

  it("prints JSON with --json", async () => {
    await writeHook(bundledDir, "alpha");
    const run = await hermesHooks(["list", "--json"]);
    expect(JSON.parse(run.stdout)).toEqual([
      { name: "alpha", description: "the alpha hook", events: ["message:received"], enabled: true, source: "bundled", path: path.join(bundledDir, "alpha") },
    ]);
  });

  it("lists the hooks that ship with the gateway", async () => {
    const run = await hermesHooks(["list"], { bundledDir: BUNDLED_HOOKS_DIR });
    expect(run.stdout).toMatch(/audit-log\s+disabled\s+bundled\s+\*/);
    expect(run.stdout).toMatch(/keyword-blocker\s+enabled\s+bundled\s+message:received/);
    expect(run.stdout).not.toContain("problem");
  });

  it("says so when there are no hooks", async () => {
    expect((await hermesHooks(["list"])).stdout).toMatch(/^No hooks found in /);
  });
});

describe("hermes hooks enable / disable", () => {
  it("writes the state file, which a running registry applies on its next event", async () => {
    const trace = path.join(root, "trace.txt");
    await writeHook(bundledDir, "tracer", { handler: `import { appendFileSync } from "node:fs";\nexport default () => { appendFileSync(${JSON.stringify(trace)}, "ran\\n"); };` });
    const operatorDir = path.join(home, "hooks");
    const running = await HookRegistry.load({ bundledDir, operatorDir, stateFile: path.join(operatorDir, "state.json"), logger: silentLogger });
    const event = { type: "message:received", timestamp: 1, text: "hi" } as const;

    const disabled = await hermesHooks(["disable", "tracer"]);
    expect(disabled).toMatchObject({ code: 0, stderr: "" });
    expect(disabled.stdout).toContain('Disabled hook "tracer"');
    expect(JSON.parse(await readFile(path.join(operatorDir, "state.json"), "utf8"))).toEqual({ disabled: ["tracer"], enabled: [] });
    await running.emit(event);

    expect((await hermesHooks(["enable", "tracer"])).code).toBe(0);
    expect(JSON.parse(await readFile(path.join(operatorDir, "state.json"), "utf8"))).toEqual({ disabled: [], enabled: ["tracer"] });
    await running.emit(event);
    expect(await readFile(trace, "utf8")).toBe("ran\n");
  });

  it("exits 1 for an unknown hook and writes nothing", async () => {
    await writeHook(bundledDir, "real");
    const run = await hermesHooks(["enable", "imaginary"]);
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toBe('Unknown hook "imaginary". Known hooks: real.\n');
    await expect(readdir(home)).rejects.toThrow();
  });
});

describe("hermes hooks install", () => {
  it("validates the folder and copies it to $HERMES_HOME/hooks/<name>/", async () => {
    const source = await writeHook(path.join(root, "src"), "folder-name", {
      manifest: "name: greeter\ndescription: greets\nevents: [session:start]\nenabled: false\n",
      file: "handler.js",
      handler: "module.exports = () => 'hello';",
    });
    await writeFile(path.join(source, "notes.txt"), "kept");
    const run = await hermesHooks(["install", "src/folder-name"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const installed = path.join(home, "hooks", "greeter");
    expect(run.stdout).toBe(`Installed hook "greeter" to ${installed}.\nIt is disabled; turn it on with: hermes hooks enable greeter\n`);
    expect((await readdir(installed)).sort()).toEqual(["HOOK.yaml", "handler.js", "notes.txt"]);
    // Nothing is left behind from staging.
    expect(await readdir(path.join(home, "hooks"))).toEqual(["greeter"]);
  });

  it("refuses to overwrite an installed hook unless --force", async () => {
    await writeHook(bundledDir, "audit");
    const source = await writeHook(path.join(root, "v1"), "audit", { handler: "export default () => 'v1';" });
    expect((await hermesHooks(["install", source])).code).toBe(0);
    const v2 = await writeHook(path.join(root, "v2"), "audit", { handler: "export default () => 'v2';" });

    const refused = await hermesHooks(["install", v2]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("use --force to replace it");
    const installedHandler = path.join(home, "hooks", "audit", "handler.mjs");
    expect(await readFile(installedHandler, "utf8")).toContain("v1");

    const forced = await hermesHooks(["install", "--force", v2]);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('It replaces the bundled hook "audit".');
    expect(await readFile(installedHandler, "utf8")).toContain("v2");
    expect(await readdir(path.join(home, "hooks"))).toEqual(["audit"]);
  });

  it("exits 1 with the reason for a folder that is not a working hook", async () => {
    const badManifest = await writeHook(root, "bad", { manifest: "name: bad\ndescription: x\nevents: [nope]\n" });
    expect(await hermesHooks(["install", badManifest])).toMatchObject({ code: 1, stderr: `${badManifest} is not a valid hook: HOOK.yaml: events[0]: unknown event "nope"\n` });
    const badHandler = await writeHook(root, "bad-handler", { handler: "export const notDefault = 1;" });
    expect((await hermesHooks(["install", badHandler])).stderr).toContain("the default export is not a function");
    expect((await hermesHooks(["install", path.join(root, "missing")])).code).toBe(1);
    await expect(readdir(path.join(home, "hooks"))).rejects.toThrow();
  });
});

describe("hermes hooks test", () => {
  it("sends the hook's first exact event and prints the result and the time taken", async () => {
    await writeHook(bundledDir, "echo", { events: "['*', agent:end, tool:after]", handler: "export default (e) => ({ got: e.type, stop: e.stopReason });" });
    const run = await hermesHooks(["test", "echo"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toContain('Sending agent:end to "echo"');
    expect(run.stdout).toContain('Result: {"got":"agent:end","stop":"completed"} (took 7 ms)\n');
  });

  it("defaults to gateway:startup for wildcard-only hooks and takes an explicit event type", async () => {
    await writeHook(bundledDir, "echo", { events: "['*']", handler: "export default (e) => e.type;" });
    expect((await hermesHooks(["test", "echo"])).stdout).toContain('Result: "gateway:startup"');
    expect((await hermesHooks(["test", "echo", "command:model"])).stdout).toContain('Result: "command:model"');
  });

  it("runs the hook against this HERMES_HOME", async () => {
    const run = await hermesHooks(["test", "audit-log", "session:end"], { bundledDir: BUNDLED_HOOKS_DIR });
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const logged = JSON.parse(await readFile(path.join(home, "logs", "hooks-audit.jsonl"), "utf8"));
    expect(logged).toMatchObject({ type: "session:end", sessionKey: expect.any(String) });
  });

  it("shows that a block would take effect", async () => {
    const run = await hermesHooks(["test", "keyword-blocker", "message:received"], { bundledDir: BUNDLED_HOOKS_DIR });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Result: undefined");
    await writeHook(bundledDir, "wall", { handler: "export default () => ({ block: true, reason: 'closed' });" });
    expect((await hermesHooks(["test", "wall"])).stdout).toContain("The gateway would block this event: closed\n");
  });

  it("exits 1 when the handler throws or times out", async () => {
    await writeHook(bundledDir, "thrower", { handler: "export default () => { throw new Error('kaput'); };" });
    expect(await hermesHooks(["test", "thrower"])).toMatchObject({ code: 1, stderr: "Handler threw: kaput (took 7 ms)\n" });
    await writeHook(bundledDir, "sleeper", {
      manifest: "name: sleeper\ndescription: never answers\nevents: [session:end]\ntimeout_ms: 25\n",
      handler: "export default () => new Promise(() => {});",
    });
    expect(await hermesHooks(["test", "sleeper"])).toMatchObject({ code: 1, stderr: "Handler timed out: did not finish within 25 ms (took 7 ms)\n" });
  });

  it("exits 1 for an unknown or broken hook and 2 for an unknown event type", async () => {
    expect(await hermesHooks(["test", "ghost"])).toMatchObject({ code: 1, stderr: 'Unknown hook "ghost".\n' });
    await writeHook(bundledDir, "broken", { manifest: "name: broken\n" });
    expect((await hermesHooks(["test", "broken"])).stderr).toMatch(/^Hook "broken" is not valid: HOOK\.yaml: /);
    await writeHook(bundledDir, "fine");
    expect((await hermesHooks(["test", "fine", "message:edited"])).code).toBe(2);
  });
});
