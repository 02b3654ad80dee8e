import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverHooks } from "./discover-hooks.js";
import { makeTempDir, recordingLogger, removeDir, writeHookFolder } from "./hook-test-fixtures.js";

let root = "";
let bundledDir = "";
let operatorDir = "";
beforeEach(async () => {
  root = await makeTempDir();
  bundledDir = path.join(root, "bundled");
  operatorDir = path.join(root, "home", "hooks");
  await mkdir(bundledDir);
  await mkdir(operatorDir, { recursive: true });
});
afterEach(async () => {
  await removeDir(root);
});

describe("discoverHooks", () => {
  it("finds hooks in both folders, sorted by name", async () => {
    await writeHookFolder(bundledDir, "zeta");
    await writeHookFolder(bundledDir, "alpha");
    await writeHookFolder(operatorDir, "mid");
    const found = await discoverHooks({ bundledDir, operatorDir, logger: recordingLogger() });
    expect(found.hooks.map((hook) => [hook.manifest.name, hook.source])).toEqual([
      ["alpha", "bundled"],
      ["mid", "operator"],
      ["zeta", "bundled"],
    ]);
    expect(found.invalid).toEqual([]);
  });

  it("lets an operator hook replace the bundled hook of the same name", async () => {
    await writeHookFolder(bundledDir, "audit");
    // The folder name does not matter; the manifest's name does.
    const mine = await writeHookFolder(operatorDir, "my-audit", { manifest: "name: audit\ndescription: mine\nevents: ['*']\n" });
    const found = await discoverHooks({ bundledDir, operatorDir, logger: recordingLogger() });
    expect(found.hooks).toHaveLength(1);
    expect(found.hooks[0]).toMatchObject({ source: "operator", folder: mine, manifest: { name: "audit", description: "mine" } });
  });

  it("skips invalid folders with a logged reason and keeps the valid ones", async () => {
    await writeHookFolder(bundledDir, "good");
    await writeHookFolder(operatorDir, "bad-yaml", { manifest: "name: [oops\n" });
    await writeHookFolder(operatorDir, "bad-schema", { manifest: "name: bad-schema\nevents: ['*']\n" });
    await mkdir(path.join(operatorDir, "no-manifest"));
    const logger = recordingLogger();
    const found = await discoverHooks({ bundledDir, operatorDir, logger });
    expect(found.hooks.map((hook) => hook.manifest.name)).toEqual(["good"]);
    expect(found.invalid.map((hook) => hook.name).sort()).toEqual(["bad-schema", "bad-yaml", "no-manifest"]);
    const warnings = logger.records.filter((record) => record.level === "warn");
    expect(warnings.map((record) => record.fields.hook).sort()).toEqual(["bad-schema", "bad-yaml", "no-manifest"]);
    expect(warnings.find((record) => record.fields.hook === "bad-schema")?.message).toContain("description");
    expect(warnings.find((record) => record.fields.hook === "bad-yaml")?.message).toContain("invalid YAML");
  });

  it("reports a second hook of the same name in one folder", async () => {
    await writeHookFolder(operatorDir, "first", { manifest: "name: twin\ndescription: a\nevents: ['*']\n" });
    const second = await writeHookFolder(operatorDir, "second", { manifest: "name: twin\ndescription: b\nevents: ['*']\n" });
    const found = await discoverHooks({ bundledDir, operatorDir, logger: recordingLogger() });
    expect(found.hooks.map((hook) => hook.manifest.description)).toEqual(["a"]);
    expect(found.invalid).toEqual([{ ok: false, name: "twin", folder: second, source: "operator", error: expect.stringContaining("already named") }]);
  });

  it("ignores files, dot-folders and missing folders, and follows symlinked hook folders", async () => {
    await writeFile(path.join(operatorDir, "state.json"), "{}");
    await writeHookFolder(operatorDir, ".staging");
    const elsewhere = await writeHookFolder(root, "linked-target", { manifest: "name: linked\ndescription: d\nevents: ['*']\n" });
    await symlink(elsewhere, path.join(operatorDir, "linked"));
    const found = await discoverHooks({ bundledDir: path.join(root, "missing"), operatorDir, logger: recordingLogger() });
    expect(found.hooks.map((hook) => hook.manifest.name)).toEqual(["linked"]);
    expect(found.invalid).toEqual([]);
  });
});
