import { readFile, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** The handler file names a hook folder may hold, in the order one is chosen when several exist. */
export const HANDLER_FILE_NAMES = ["handler.js", "handler.mjs", "handler.ts"] as const;

export type ModuleFormat = "esm" | "commonjs" | "typescript";

export type FormatResult = { ok: true; format: ModuleFormat } | { ok: false; error: string };

/**
 * Node's rule: `.mjs` is ESM; `.js` takes the `type` of the nearest package.json (the hook folder's own one first),
 * CommonJS when there is none. TypeScript goes through tsx, which applies the same rule itself.
 */
export async function moduleFormatOf(file: string): Promise<FormatResult> {
  const extension = path.extname(file);
  if (extension === ".mjs") return { ok: true, format: "esm" };
  if (extension === ".cjs") return { ok: true, format: "commonjs" };
  if (extension === ".ts") return { ok: true, format: "typescript" };
  const scope = await packageTypeOf(path.dirname(file));
  if (!scope.ok) return scope;
  return { ok: true, format: scope.type === "module" ? "esm" : "commonjs" };
}

type PackageType = { ok: true; type: string | undefined } | { ok: false; error: string };

async function packageTypeOf(startDir: string): Promise<PackageType> {
  let dir = startDir;
  for (;;) {
    const manifest = path.join(dir, "package.json");
    const text = await readFile(manifest, "utf8").catch(() => undefined);
    if (text !== undefined) return typeFieldOf(text, manifest);
    const parent = path.dirname(dir);
    // Node stops looking for a package scope at the file system root and at node_modules folders.
    if (parent === dir || path.basename(dir) === "node_modules") return { ok: true, type: undefined };
    dir = parent;
  }
}

function typeFieldOf(text: string, file: string): PackageType {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, error: `${file} is not valid JSON, so the handler's module format is unknown` };
  }
  if (typeof data !== "object" || data === null || !("type" in data)) return { ok: true, type: undefined };
  return { ok: true, type: typeof data.type === "string" ? data.type : undefined };
}

/** What the module system returned for a handler file; its default export is picked out by the caller. */
export async function importHandlerModule(file: string, format: ModuleFormat): Promise<unknown> {
  const version = await fileVersion(file);
  switch (format) {
    case "commonjs": {
      const requireFromHook = createRequire(file);
      // The file changed (that is why it is loaded again): the module cache would hand back the old exports.
      delete requireFromHook.cache[file];
      return requireFromHook(file);
    }
    case "esm":
      // ESM modules cannot be evicted from the cache; a new URL per file version loads the edited code.
      return import(`${pathToFileURL(file).href}?version=${encodeURIComponent(version)}`);
    case "typescript": {
      // Loaded on first use: most deployments have no TypeScript hooks and should not pay for tsx at start-up.
      const { tsImport } = await import("tsx/esm/api");
      // tsImport loads into a fresh namespace on each call, so an edited file is picked up as well.
      return tsImport(pathToFileURL(file).href, { parentURL: import.meta.url, tsconfig: false });
    }
  }
}

/** Changes whenever the file is rewritten, renamed over or touched. */
export async function fileVersion(file: string): Promise<string> {
  const info = await stat(file);
  return `${info.ino}-${info.size}-${info.mtimeMs}`;
}
