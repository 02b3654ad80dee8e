import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HookEvent } from "./events.js";
import { loadHookHandler, readHookFolder, type HandlerLoad } from "./load-hook.js";
import { makeTempDir, removeDir, writeHookFolder } from "./hook-test-fixtures.js";

const EVENT: HookEvent = { type: "message:received", timestamp: 1, text: "hi" };

let root: string | undefined;
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  await removeDir(root);
  root = undefined;
});

function dir(): string {
  if (root === undefined) throw new Error("no temp dir");
  return root;
}

async function loadFolder(folder: string): Promise<HandlerLoad> {
  const candidate = await readHookFolder(folder, "operator");
  if (!candidate.ok) throw new Error(candidate.error);
  return loadHookHandler(candidate.handlerFile);
}

async function callLoaded(load: HandlerLoad): Promise<unknown> {
  if (!load.ok) throw new Error(load.error);
  return load.handler(EVENT);
}

describe("loadHookHandler module formats", () => {
  it("loads handler.mjs as ESM", async () => {
    const folder = await writeHookFolder(dir(), "mjs", {
      handler: { file: "handler.mjs", code: "export default async (event) => ({ format: 'mjs', type: event.type });" },
    });
    expect(await callLoaded(await loadFolder(folder))).toEqual({ format: "mjs", type: "message:received" });
  });

  it("loads handler.js as ESM when the folder's package.json says type module", async () => {
    const folder = await writeHookFolder(dir(), "js-esm", {
      handler: { file: "handler.js", code: "export default (event) => `esm ${event.text}`;" },
      packageJson: { type: "module" },
    });
    expect(await callLoaded(await loadFolder(folder))).toBe("esm hi");
  });

  it("loads handler.js as CommonJS when there is no package.json saying otherwise", async () => {
    const folder = await writeHookFolder(dir(), "js-cjs", {
      handler: { file: "handler.js", code: "module.exports = async (event) => ({ cjs: typeof require === 'function', text: event.text });" },
    });
    expect(await callLoaded(await loadFolder(folder))).toEqual({ cjs: true, text: "hi" });
  });

  it("loads handler.js as CommonJS when the folder's package.json says type commonjs", async () => {
    const folder = await writeHookFolder(dir(), "js-cjs-explicit", {
      handler: { file: "handler.js", code: "exports.default = async () => 'compiled from ESM';" },
      packageJson: { type: "commonjs" },
    });
    expect(await callLoaded(await loadFolder(folder))).toBe("compiled from ESM");
  });

  it("follows the nearest package.json above the hook folder, as Node does", async () => {
    await writeFile(path.join(dir(), "package.json"), JSON.stringify({ type: "module" }));
    const folder = await writeHookFolder(dir(), "inherits", {
      handler: { file: "handler.js", code: "export default () => import.meta.url.endsWith('handler.js') || import.meta.url.includes('handler.js?');" },
    });
    expect(await callLoaded(await loadFolder(folder))).toBe(true);
  });

  it("loads handler.ts through tsx", async () => {
    const folder = await writeHookFolder(dir(), "ts", {
      handler: {
        file: "handler.ts",
        code: [
          "interface Seen { kind: string; length: number }",
          "export default async function handle(event: { type: string; text?: string }): Promise<Seen> {",
          "  return { kind: event.type, length: (event.text ?? '').length };",
          "}",
        ].join("\n"),
      },
    });
    expect(await callLoaded(await loadFolder(folder))).toEqual({ kind: "message:received", length: 2 });
  });

  it("picks up an edited handler file when it is loaded again", async () => {
    const folder = await writeHookFolder(dir(), "edited", { handler: { file: "handler.mjs", code: "export default () => 1;" } });
    expect(await callLoaded(await loadFolder(folder))).toBe(1);
    await writeFile(path.join(folder, "handler.mjs"), "export default () => 22;");
    expect(await callLoaded(await loadFolder(folder))).toBe(22);
  });
});

describe("loadHookHandler failures are values", () => {
  it("reports a default export that is not a function", async () => {
    const folder = await writeHookFolder(dir(), "not-fn", { handler: { file: "handler.mjs", code: "export default 42;" } });
    expect(await loadFolder(folder)).toEqual({ ok: false, error: "handler.mjs: the default export is not a function (got number)" });
  });

  it("reports an ES module without a default export", async () => {
    const folder = await writeHookFolder(dir(), "named", { handler: { file: "handler.mjs", code: "export const handle = () => 1;" } });
    expect(await loadFolder(folder)).toEqual({ ok: false, error: "handler.mjs: the default export is not a function (got no default export)" });
  });

  it("reports a CommonJS module exporting an object", async () => {
    const folder = await writeHookFolder(dir(), "cjs-object", { handler: { file: "handler.js", code: "module.exports = { handle() {} };" } });
    expect(await loadFolder(folder)).toEqual({ ok: false, error: "handler.js: the default export is not a function (got an object)" });
  });

  it("reports a handler that fails to load", async () => {
    const folder = await writeHookFolder(dir(), "syntax", { handler: { file: "handler.mjs", code: "export default (event => {" } });
    const load = await loadFolder(folder);
    expect(load.ok).toBe(false);
    // The wording of the parse error belongs to the module loader (Node, or Vite under the test runner).
    if (!load.ok) expect(load.error).toMatch(/^handler\.mjs failed to load: \S/);
  });

  it("gives up on a handler whose top-level code never finishes", async () => {
    const folder = await writeHookFolder(dir(), "hangs-at-load", { handler: { file: "handler.mjs", code: "await new Promise(() => {});\nexport default () => 1;" } });
    const candidate = await readHookFolder(folder, "operator");
    if (!candidate.ok) throw new Error(candidate.error);
    expect(await loadHookHandler(candidate.handlerFile, { timeoutMs: 30 })).toEqual({ ok: false, error: "handler.mjs did not finish loading within 30 ms" });
  });

  it("reports a handler that throws while loading", async () => {
    const folder = await writeHookFolder(dir(), "throws-at-load", { handler: { file: "handler.js", code: "throw new Error('no config');" } });
    expect(await loadFolder(folder)).toEqual({ ok: false, error: "handler.js failed to load: no config" });
  });
});

describe("readHookFolder", () => {
  it("reads the manifest and prefers handler.js over handler.ts", async () => {
    const folder = await writeHookFolder(dir(), "both", {
      events: ["agent:*"],
      extraManifest: "timeout_ms: 250\nenabled: false",
      handler: { file: "handler.ts", code: "export default () => 'ts';" },
      files: { "handler.js": "module.exports = () => 'js';" },
    });
    const candidate = await readHookFolder(folder, "bundled");
    expect(candidate).toEqual({
      ok: true,
      folder,
      source: "bundled",
      handlerFile: path.join(folder, "handler.js"),
      manifest: { name: "both", description: "test hook both", events: ["agent:*"], enabled: false, timeoutMs: 250 },
    });
  });

  it("names the folder and the reason when the handler is missing", async () => {
    const folder = path.join(dir(), "no-handler");
    await mkdir(folder);
    await writeFile(path.join(folder, "HOOK.yaml"), "name: no-handler\ndescription: x\nevents: ['*']\n");
    expect(await readHookFolder(folder, "operator")).toEqual({
      ok: false,
      name: "no-handler",
      folder,
      source: "operator",
      error: "no handler file (expected one of handler.js, handler.mjs, handler.ts)",
    });
  });

  it("reports a missing HOOK.yaml", async () => {
    const folder = path.join(dir(), "empty");
    await mkdir(folder);
    const candidate = await readHookFolder(folder, "operator");
    expect(candidate.ok).toBe(false);
    if (!candidate.ok) expect(candidate.error).toMatch(/^cannot read HOOK\.yaml/);
  });
});
