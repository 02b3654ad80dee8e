import { mkdir, readFile, rename, rm, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { HookEvent } from "./events.js";
import { HookRegistry } from "./hook-registry.js";
import { writeHookState } from "./hook-state.js";
import { makeTempDir, recordingHandler, recordingLogger, removeDir, writeHookFolder } from "./hook-test-fixtures.js";

let root = "";
let bundledDir = "";
let home = "";
let operatorDir = "";
let stateFile = "";
let trace = "";
const stops: Array<() => void> = [];
beforeEach(async () => {
  root = await makeTempDir();
  bundledDir = path.join(root, "bundled");
  home = path.join(root, "home");
  operatorDir = path.join(home, "hooks");
  stateFile = path.join(operatorDir, "state.json");
  trace = path.join(root, "trace.txt");
  await mkdir(bundledDir);
});
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await removeDir(root);
});

const ping = (n: number): HookEvent => ({ type: "session:reset", timestamp: n, sessionKey: "agent:main:cli:dm:1" });

async function traced(): Promise<string[]> {
  const text = await readFile(trace, "utf8").catch(() => "");
  return text.split("\n").filter((line) => line !== "");
}

function load(): Promise<HookRegistry> {
  return HookRegistry.load({ bundledDir, operatorDir, stateFile, logger: recordingLogger(), watchDebounceMs: 20 });
}

function enabledOf(registry: HookRegistry, name: string): boolean | undefined {
  return registry.list().find((hook) => hook.name === name)?.enabled;
}

describe("enable/disable through the state file, without a restart", () => {
  it("notices a changed state file on the next emit", async () => {
    await writeHookFolder(bundledDir, "on-by-default", { events: ["session:*"], handler: recordingHandler(trace, "on") });
    await writeHookFolder(bundledDir, "off-by-default", { events: ["session:*"], extraManifest: "enabled: false", handler: recordingHandler(trace, "off") });
    const registry = await load();
    expect(enabledOf(registry, "off-by-default")).toBe(false);
    await registry.emit(ping(1));

    await writeHookState(stateFile, { disabled: ["on-by-default"], enabled: ["off-by-default"] });
    expect(enabledOf(registry, "on-by-default")).toBe(false);
    expect(enabledOf(registry, "off-by-default")).toBe(true);
    await registry.emit(ping(2));

    await writeHookState(stateFile, { disabled: [], enabled: [] });
    await registry.emit(ping(3));
    expect(await traced()).toEqual(["on session:reset", "off session:reset", "on session:reset"]);
  });

  it("notices a rewrite in place that keeps the file's size, inode and modification time, made right after a read", async () => {
    await writeHookFolder(bundledDir, "hook", { events: ["session:*"], handler: recordingHandler(trace, "hook") });
    const registry = await load();
    await mkdir(operatorDir, { recursive: true });
    const stamp = new Date();
    await writeFile(stateFile, JSON.stringify({ disabled: ["hook"], enabled: [] }));
    await utimes(stateFile, stamp, stamp);
    await registry.emit(ping(1));
    // What a second write within one coarse file-system clock tick looks like to a stat.
    await writeFile(stateFile, JSON.stringify({ disabled: [], enabled: ["hook"] }));
    await utimes(stateFile, stamp, stamp);
    await registry.emit(ping(2));
    expect(await traced()).toEqual(["hook session:reset"]);
  });

  it("treats a broken state file as no overrides", async () => {
    await writeHookFolder(bundledDir, "hook", { events: ["session:*"], handler: recordingHandler(trace, "hook") });
    const registry = await load();
    await mkdir(operatorDir, { recursive: true });
    await writeFile(stateFile, "{ broken");
    await registry.emit(ping(1));
    expect(await traced()).toEqual(["hook session:reset"]);
  });
});

describe("reload", () => {
  it("finds new and removed hooks and loads edited handlers", async () => {
    await writeHookFolder(bundledDir, "stays", { events: ["session:*"], handler: recordingHandler(trace, "v1") });
    await writeHookFolder(bundledDir, "goes", { events: ["session:*"], handler: recordingHandler(trace, "goes") });
    const registry = await load();
    await registry.emit(ping(1));

    await writeHookFolder(operatorDir, "arrives", { events: ["session:*"], handler: recordingHandler(trace, "arrives") });
    await rm(path.join(bundledDir, "goes"), { recursive: true });
    await writeFile(path.join(bundledDir, "stays", "handler.mjs"), recordingHandler(trace, "v2").code);
    await registry.reload();
    await registry.emit(ping(2));
    expect(await traced()).toEqual(["goes session:reset", "v1 session:reset", "arrives session:reset", "v2 session:reset"]);
    expect(registry.list().map((hook) => hook.name)).toEqual(["arrives", "stays"]);
  });
});

describe("watch", () => {
  it("picks up a hook installed into an operator folder that did not exist yet", async () => {
    const registry = await load();
    stops.push(registry.watch());
    expect(registry.list()).toEqual([]);
    // Installed the way `hermes hooks install` does it: staged in a dot-folder, then renamed into place.
    await mkdir(operatorDir, { recursive: true });
    await writeHookFolder(operatorDir, ".staging", { manifest: "name: fresh\ndescription: d\nevents: ['session:*']\n", handler: recordingHandler(trace, "fresh") });
    await rename(path.join(operatorDir, ".staging"), path.join(operatorDir, "fresh"));
    await vi.waitFor(() => expect(registry.list().map((hook) => hook.name)).toEqual(["fresh"]), { timeout: 5000, interval: 20 });
    await registry.emit(ping(1));
    expect(await traced()).toEqual(["fresh session:reset"]);
  });

  it("reloads when a HOOK.yaml or handler changes, and stops when unwatched", async () => {
    const folder = await writeHookFolder(bundledDir, "edited", { events: ["session:*"], handler: recordingHandler(trace, "before") });
    const registry = await load();
    const stop = registry.watch();
    stops.push(stop);
    await writeFile(path.join(folder, "HOOK.yaml"), "name: edited\ndescription: now with a description\nevents: ['session:*']\n");
    await vi.waitFor(() => expect(registry.list()[0]?.description).toBe("now with a description"), { timeout: 5000, interval: 20 });

    await writeFile(path.join(folder, "handler.mjs"), recordingHandler(trace, "after").code);
    await vi.waitFor(
      async () => {
        await registry.emit(ping(1));
        expect((await traced()).at(-1)).toBe("after session:reset");
      },
      { timeout: 5000, interval: 50 },
    );

    stop();
    // A second watching registry tells when the edit has been noticed; the stopped one must not have noticed it.
    const witness = await load();
    stops.push(witness.watch());
    await writeFile(path.join(folder, "HOOK.yaml"), "name: edited\ndescription: unseen\nevents: ['session:*']\n");
    await vi.waitFor(() => expect(witness.list()[0]?.description).toBe("unseen"), { timeout: 5000, interval: 20 });
    expect(registry.list()[0]?.description).toBe("now with a description");
  });

  it("loads the handler of a hook enabled through the state file before any event arrives", async () => {
    await writeHookFolder(bundledDir, "dormant", {
      events: ["session:*"],
      extraManifest: "enabled: false",
      handler: { file: "handler.mjs", code: "export default 'not a function';" },
    });
    const registry = await load();
    stops.push(registry.watch());
    // Disabled hooks are not loaded, so nothing is known to be wrong with it yet.
    expect(registry.list()[0]?.problem).toBeUndefined();
    await writeHookState(stateFile, { disabled: [], enabled: ["dormant"] });
    await vi.waitFor(() => expect(registry.list()[0]?.problem).toContain("not a function"), { timeout: 5000, interval: 20 });
    expect(enabledOf(registry, "dormant")).toBe(true);
  });
});
