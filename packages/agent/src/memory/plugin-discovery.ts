import { promises as fs, statSync, type Dirent } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { errorCode } from "../builtin-tools/fs-errors.js";
import { silentLogger, type Logger } from "../observability/logger.js";
import { isMemoryProvider, isMemoryProviderClass, type MemoryProvider, type MemoryProviderContext } from "./memory-provider.js";

/** Loads a plugin module; injectable so tests and bundled builds can bypass the TypeScript loader. */
export type PluginImporter = (file: string) => Promise<unknown>;

export interface DiscoverMemoryProvidersOptions {
  /** Folders to scan in order, e.g. the built-in plugin folder then `$HERMES_HOME/memory-providers/`. */
  dirs: readonly string[];
  /** Handed to `register(ctx)` or the provider class constructor (usually `MemoryManager.context`). */
  context: MemoryProviderContext;
  logger?: Logger;
  importModule?: PluginImporter;
}

export interface SkippedPlugin {
  file: string;
  reason: string;
}

export interface DiscoveredMemoryProviders {
  providers: MemoryProvider[];
  skipped: SkippedPlugin[];
}

const PLUGIN_FILE = /\.(?:m?js|ts)$/;
const NOT_A_PLUGIN = /(?:\.d\.ts|\.test\.ts|\.spec\.ts)$/;
const FOLDER_ENTRY_FILES = ["index.mjs", "index.js", "index.ts"];

/** The user's plugin folder under a Hermes home. */
export function userMemoryProvidersDir(hermesHome: string): string {
  return path.join(hermesHome, "memory-providers");
}

/**
 * Finds memory provider plugins (seed 000 §4.5): every `*.js|*.mjs|*.ts` file in the given folders, and every
 * sub-folder with an `index.mjs|js|ts`. A plugin either exports `register(ctx)` returning a provider, or exports
 * a provider class (default or named) constructed with the context. Classes are recognised by shape, not by
 * `instanceof`, since a plugin may import its own copy of `MemoryProvider`. A plugin that fails to load, throws
 * or yields something else is skipped with the reason logged; a later plugin with an already-seen name too.
 * The providers are not initialized: hand them to `MemoryManager.addProvider`, which admits only one.
 */
export async function discoverMemoryProviders(options: DiscoverMemoryProvidersOptions): Promise<DiscoveredMemoryProviders> {
  const logger = options.logger ?? silentLogger;
  const importModule = options.importModule ?? importPlugin;
  const providers: MemoryProvider[] = [];
  const skipped: SkippedPlugin[] = [];
  for (const dir of options.dirs) {
    for (const file of await pluginFiles(dir, logger)) {
      const loaded = await loadPlugin(file, importModule, options.context);
      if ("reason" in loaded) {
        skipped.push({ file, reason: loaded.reason });
        logger.warn("memory provider plugin skipped", { file, reason: loaded.reason });
      } else if (providers.some((provider) => provider.name === loaded.provider.name)) {
        const reason = `a provider named "${loaded.provider.name}" was already found`;
        skipped.push({ file, reason });
        logger.warn("memory provider plugin skipped", { file, reason });
      } else {
        providers.push(loaded.provider);
        logger.debug("memory provider plugin found", { file, provider: loaded.provider.name });
      }
    }
  }
  return { providers, skipped };
}

async function pluginFiles(dir: string, logger: Logger): Promise<string[]> {
  // Usually there is no plugin folder, and every new memory scope looks: a stat that returns nothing for it is cheaper
  // than a readdir that fails (a thread-pool round trip and an error object each time).
  if (!folderMayExist(dir)) return [];
  let entries: Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    logger.warn("memory provider folder unreadable", { dir, code });
    return [];
  }
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isFile() && PLUGIN_FILE.test(entry.name) && !NOT_A_PLUGIN.test(entry.name)) files.push(full);
    if (entry.isDirectory()) {
      const names = await fs.readdir(full).catch(() => [] as string[]);
      const index = FOLDER_ENTRY_FILES.find((name) => names.includes(name));
      if (index !== undefined) files.push(path.join(full, index));
    }
  }
  return files;
}

function folderMayExist(dir: string): boolean {
  try {
    return statSync(dir, { throwIfNoEntry: false }) !== undefined;
  } catch {
    // Unreadable or not a folder on the way: readdir says which, as before.
    return true;
  }
}

async function loadPlugin(
  file: string,
  importModule: PluginImporter,
  context: MemoryProviderContext,
): Promise<{ provider: MemoryProvider } | { reason: string }> {
  let loaded: unknown;
  try {
    loaded = await importModule(file);
  } catch (error) {
    return { reason: `failed to load: ${describe(error)}` };
  }
  if (typeof loaded !== "object" || loaded === null) return { reason: "the module has no exports" };
  const exports = loaded as Record<string, unknown>;

  if (typeof exports.register === "function") {
    let made: unknown;
    try {
      made = await (exports.register as (ctx: MemoryProviderContext) => unknown)(context);
    } catch (error) {
      return { reason: `register() threw: ${describe(error)}` };
    }
    return isMemoryProvider(made) ? { provider: made } : { reason: "register() did not return a memory provider (name, isAvailable, initialize, getToolSchemas)" };
  }

  const candidates = ["default", ...Object.keys(exports).filter((key) => key !== "default")]
    .map((key) => exports[key])
    .filter(isMemoryProviderClass);
  const ProviderClass = candidates[0];
  if (ProviderClass === undefined) return { reason: "exports neither register() nor a memory provider class" };
  let instance: unknown;
  try {
    instance = new ProviderClass(context);
  } catch (error) {
    return { reason: `the provider constructor threw: ${describe(error)}` };
  }
  return isMemoryProvider(instance) ? { provider: instance } : { reason: "the exported class does not make a memory provider (missing name?)" };
}

async function importPlugin(file: string): Promise<unknown> {
  const url = pathToFileURL(file).href;
  if (file.endsWith(".ts")) {
    // tsx only when a TypeScript provider exists, so start-up does not load it otherwise.
    const { tsImport } = await import("tsx/esm/api");
    return tsImport(url, import.meta.url);
  }
  return import(url);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
