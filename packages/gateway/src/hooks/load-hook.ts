import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { HookEvent } from "./events.js";
import { HANDLER_FILE_NAMES, importHandlerModule, moduleFormatOf } from "./handler-module.js";
import { parseHookManifest, type HookManifest } from "./manifest.js";

export type HookSource = "bundled" | "operator";

/** What a hook's default export is called with; it may return a value or a promise of one. */
export type HookHandler = (event: HookEvent) => unknown;

export const MANIFEST_FILE_NAME = "HOOK.yaml";

/** A hook folder as read from disk, before its handler runs any code. */
export type HookCandidate =
  | { ok: true; manifest: HookManifest; folder: string; source: HookSource; handlerFile: string }
  | { ok: false; name: string; folder: string; source: HookSource; error: string };

export async function readHookFolder(folder: string, source: HookSource): Promise<HookCandidate> {
  const invalid = (error: string): HookCandidate => ({ ok: false, name: path.basename(folder), folder, source, error });
  let text: string;
  try {
    text = await readFile(path.join(folder, MANIFEST_FILE_NAME), "utf8");
  } catch (error) {
    return invalid(`cannot read ${MANIFEST_FILE_NAME}: ${describeError(error)}`);
  }
  const parsed = parseHookManifest(text);
  if (!parsed.ok) return invalid(`${MANIFEST_FILE_NAME}: ${parsed.error}`);
  const handlerFile = await findHandlerFile(folder);
  if (handlerFile === undefined) return invalid(`no handler file (expected one of ${HANDLER_FILE_NAMES.join(", ")})`);
  return { ok: true, manifest: parsed.manifest, folder, source, handlerFile };
}

async function findHandlerFile(folder: string): Promise<string | undefined> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  const files = new Set(entries.filter((entry) => entry.isFile()).map((entry) => entry.name));
  const name = HANDLER_FILE_NAMES.find((candidate) => files.has(candidate));
  return name === undefined ? undefined : path.join(folder, name);
}

export type HandlerLoad = { ok: true; handler: HookHandler } | { ok: false; error: string };

// A module whose top-level code never finishes (an await on a dead server) must not hold discovery up forever.
export const HANDLER_LOAD_TIMEOUT_MS = 10_000;

/** Imports a handler file; a module that fails to load or exports no function is a described failure, not a throw. */
export async function loadHookHandler(handlerFile: string, options: { timeoutMs?: number } = {}): Promise<HandlerLoad> {
  const fileName = path.basename(handlerFile);
  const format = await moduleFormatOf(handlerFile);
  if (!format.ok) return format;
  const timeoutMs = options.timeoutMs ?? HANDLER_LOAD_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<{ timedOut: true }>((resolve) => {
    timer = setTimeout(() => resolve({ timedOut: true }), timeoutMs);
  });
  let loaded: unknown;
  try {
    const settled = await Promise.race([importHandlerModule(handlerFile, format.format).then((module) => ({ module })), deadline]);
    if ("timedOut" in settled) return { ok: false, error: `${fileName} did not finish loading within ${timeoutMs} ms` };
    loaded = settled.module;
  } catch (error) {
    return { ok: false, error: `${fileName} failed to load: ${describeError(error)}` };
  } finally {
    clearTimeout(timer);
  }
  const handler = defaultExport(loaded);
  if (typeof handler !== "function") {
    const got = handler === undefined ? "no default export" : describeValue(handler);
    return { ok: false, error: `${fileName}: the default export is not a function (got ${got})` };
  }
  return { ok: true, handler: (event) => Reflect.apply(handler, undefined, [event]) };
}

/**
 * ESM namespaces keep the function under `default`; CommonJS exports it as `module.exports` itself, or under
 * `default` when it was compiled from ESM — and tsx may wrap such a module once more.
 */
function defaultExport(loaded: unknown): unknown {
  let current = loaded;
  for (let depth = 0; depth < 3; depth++) {
    if (typeof current === "function") return current;
    if (typeof current !== "object" || current === null) return current;
    // An ES module namespace without a default export has nothing to call.
    if (!("default" in current)) return isModuleNamespace(current) ? undefined : current;
    current = current.default;
  }
  return current;
}

function isModuleNamespace(value: object): boolean {
  return Object.prototype.toString.call(value) === "[object Module]";
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return typeof value;
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name === "Error" ? "" : `${error.name}: `}${error.message.split("\n")[0] ?? ""}`;
  return String(error);
}
