import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { errorCode } from "../builtin-tools/fs-errors.js";
import { silentLogger, type Logger } from "../observability/logger.js";

/** Framework and dimension ids become parts of skill names, so they follow the same lowercase slug rules. */
export const FRAMEWORK_ID_PATTERN = /^[a-z0-9][a-z0-9-]*$/;
export const MAX_FRAMEWORK_ID_LENGTH = 40;

const Id = Type.String({ pattern: FRAMEWORK_ID_PATTERN.source, minLength: 1, maxLength: MAX_FRAMEWORK_ID_LENGTH });
/**
 * Matched against the user's words to decide which frameworks a review audits first; they never decide whether a
 * conversation is reviewed. Case-insensitive and on word boundaries. A trailing "*" matches any ending
 * ("source*" finds "sources", "sourced"); spaces and hyphens inside a keyword match either ("up to date").
 */
const Keywords = Type.Array(Type.String({ minLength: 1, maxLength: 60 }), { maxItems: 60 });

export const FrameworkDimensionSchema = Type.Object({
  id: Id,
  name: Type.String({ minLength: 1, maxLength: 80 }),
  description: Type.String({ minLength: 1, maxLength: 600 }),
  keywords: Keywords,
});
export type FrameworkDimension = Static<typeof FrameworkDimensionSchema>;

/** What a good answer in one domain should cover (seed 000 §6.1); unknown keys are ignored. */
export const ReflectionFrameworkSchema = Type.Object({
  id: Id,
  name: Type.String({ minLength: 1, maxLength: 80 }),
  description: Type.String({ minLength: 1, maxLength: 600 }),
  /** Domain words that are no dimension's own but still show a conversation belongs here ("research", "look up"). */
  keywords: Type.Optional(Keywords),
  dimensions: Type.Array(FrameworkDimensionSchema, { minItems: 1, maxItems: 20 }),
});
export type ReflectionFramework = Static<typeof ReflectionFrameworkSchema>;

export type FrameworkCheck = { ok: true; framework: ReflectionFramework } | { ok: false; error: string };

export function parseFramework(data: unknown): FrameworkCheck {
  if (!Value.Check(ReflectionFrameworkSchema, data)) {
    const first = Value.Errors(ReflectionFrameworkSchema, data).First();
    const where = first === undefined || first.path === "" ? "(root)" : first.path;
    return { ok: false, error: `invalid framework at ${where}: ${first?.message ?? "does not match the framework schema"}` };
  }
  const seen = new Set<string>();
  for (const dimension of data.dimensions) {
    if (seen.has(dimension.id)) return { ok: false, error: `dimension id "${dimension.id}" is used twice` };
    seen.add(dimension.id);
  }
  return { ok: true, framework: data };
}

export interface LoadFrameworksOptions {
  logger?: Logger;
}

/** The frameworks shipped with the agent. */
export function bundledFrameworksDir(): string {
  return fileURLToPath(new URL("./frameworks/", import.meta.url)).replace(/[\\/]$/, "");
}

/**
 * Reads framework JSON files: a folder contributes every `*.json` in it (sorted by name), a file itself. A file
 * that cannot be read, is not JSON or is not a valid framework is skipped with the reason logged, and so is a
 * later framework that reuses an earlier one's id.
 */
export async function loadFrameworks(source: string | readonly string[], options: LoadFrameworksOptions = {}): Promise<ReflectionFramework[]> {
  const logger = options.logger ?? silentLogger;
  const files: string[] = [];
  for (const entry of typeof source === "string" ? [source] : source) files.push(...(await expand(entry, logger)));
  const frameworks: ReflectionFramework[] = [];
  for (const file of files) {
    const loaded = await loadFrameworkFile(file);
    if (!loaded.ok) {
      logger.warn("reflection framework skipped", { file, reason: loaded.error });
      continue;
    }
    if (frameworks.some((framework) => framework.id === loaded.framework.id)) {
      logger.warn("reflection framework skipped", { file, reason: `a framework with id "${loaded.framework.id}" was already loaded` });
      continue;
    }
    frameworks.push(loaded.framework);
  }
  return frameworks;
}

export async function loadFrameworkFile(file: string): Promise<FrameworkCheck> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    return { ok: false, error: `cannot be read (${describeFsError(error)})` };
  }
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    return { ok: false, error: `is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  return parseFramework(data);
}

async function expand(entry: string, logger: Logger): Promise<string[]> {
  const stats = await fs.stat(entry).catch((error: unknown) => {
    const reason = describeFsError(error);
    // An optional folder (e.g. the operator's own frameworks) that was never created is normal, not a problem.
    if (reason === "ENOENT") logger.info("reflection framework path skipped", { path: entry, reason });
    else logger.warn("reflection framework path skipped", { path: entry, reason });
    return undefined;
  });
  if (stats === undefined) return [];
  if (!stats.isDirectory()) return [entry];
  const names = await fs.readdir(entry).catch((error: unknown) => {
    logger.warn("reflection framework folder skipped", { path: entry, reason: describeFsError(error) });
    return [];
  });
  return names
    .filter((name) => name.toLowerCase().endsWith(".json"))
    .sort()
    .map((name) => path.join(entry, name));
}

function describeFsError(error: unknown): string {
  const code = errorCode(error);
  // Without an errno code this is a bug, not a file-system condition to report.
  if (code === undefined) throw error;
  return code;
}
