import { readFile, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hookStateStamp, hookStateVersion, isHookEnabled, readHookState, withHookEnabled, writeHookState } from "./hook-state.js";
import { makeTempDir, removeDir } from "./hook-test-fixtures.js";

let root = "";
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  await removeDir(root);
});

describe("hook state file", () => {
  it("is empty when the file is absent", () => {
    expect(readHookState(path.join(root, "hooks", "state.json"))).toEqual({ version: "absent", overrides: { disabled: [], enabled: [] } });
    expect(readHookState(undefined)).toEqual({ version: "none", overrides: { disabled: [], enabled: [] } });
  });

  it("writes and reads back the overrides, creating the folder", async () => {
    const file = path.join(root, "hooks", "state.json");
    await writeHookState(file, withHookEnabled(withHookEnabled({ disabled: [], enabled: [] }, "audit-log", false), "extra", true));
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ disabled: ["audit-log"], enabled: ["extra"] });
    expect(readHookState(file).overrides).toEqual({ disabled: ["audit-log"], enabled: ["extra"] });
  });

  it("gets a new version whenever the file is rewritten", async () => {
    const file = path.join(root, "state.json");
    await writeHookState(file, { disabled: ["a"], enabled: [] });
    const first = hookStateVersion(file);
    await writeHookState(file, { disabled: [], enabled: ["a"] });
    expect(hookStateVersion(file)).not.toBe(first);
  });

  it("gets a new version when the file is rewritten in place at the same size with its old mtime put back", async () => {
    const file = path.join(root, "state.json");
    const longAgo = new Date(Date.now() - 3_600_000);
    await writeFile(file, '{"disabled":["aaa"]}');
    await utimes(file, longAgo, longAgo);
    const first = hookStateStamp(file);
    expect(first.settled).toBe(true);
    await writeFile(file, '{"disabled":["bbb"]}');
    await utimes(file, longAgo, longAgo);
    expect(hookStateVersion(file)).not.toBe(first.version);
  });

  it("is settled once the file has not changed for a while, and for no file", async () => {
    const file = path.join(root, "state.json");
    expect(hookStateStamp(file)).toEqual({ version: "absent", settled: true });
    await writeHookState(file, { disabled: ["a"], enabled: [] });
    expect(hookStateStamp(file).settled).toBe(false);
    expect(readHookState(file).settled).toBe(false);
    const aMinuteAgo = new Date(Date.now() - 60_000);
    await utimes(file, aMinuteAgo, aMinuteAgo);
    expect(hookStateStamp(file).settled).toBe(true);
    expect(readHookState(file)).toMatchObject({ settled: true, overrides: { disabled: ["a"], enabled: [] } });
  });

  it("treats a broken file as no overrides and says why", async () => {
    const file = path.join(root, "state.json");
    await writeFile(file, "{ not json");
    const broken = readHookState(file);
    expect(broken.overrides).toEqual({ disabled: [], enabled: [] });
    expect(broken.error).toContain(file);
    await writeFile(file, JSON.stringify({ disabled: "audit-log" }));
    expect(readHookState(file).error).toContain('expected {"disabled": [names], "enabled": [names]}');
  });
});

describe("isHookEnabled / withHookEnabled", () => {
  it("lets the state file override the manifest both ways", () => {
    expect(isHookEnabled("a", true, { disabled: ["a"], enabled: [] })).toBe(false);
    expect(isHookEnabled("a", false, { disabled: [], enabled: ["a"] })).toBe(true);
    expect(isHookEnabled("a", false, { disabled: [], enabled: [] })).toBe(false);
    expect(isHookEnabled("a", true, { disabled: ["a"], enabled: ["a"] })).toBe(false);
  });

  it("keeps a name in one list only", () => {
    const disabled = withHookEnabled({ disabled: [], enabled: ["a", "b"] }, "a", false);
    expect(disabled).toEqual({ disabled: ["a"], enabled: ["b"] });
    expect(withHookEnabled(disabled, "a", true)).toEqual({ disabled: [], enabled: ["a", "b"] });
  });
});
