import { promises as fs } from "node:fs";
import path from "node:path";
import { errorCode } from "../builtin-tools/fs-errors.js";
import { formatBytes, looksBinary } from "../builtin-tools/text-file.js";
import { isWithin } from "../builtin-tools/workspace.js";

/** The only folders of a skill that Tier 3 reads and skill_manage writes. */
export const SUPPORT_FOLDERS = ["references", "templates", "scripts", "assets"] as const;
export const DEFAULT_MAX_SUPPORT_FILE_BYTES = 200 * 1024;

const MAX_LISTED_FILES = 200;
const MAX_LIST_DEPTH = 6;

export type SupportPath = { ok: true; absolute: string; relative: string } | { ok: false; error: string };

/**
 * Maps a path the model gave (e.g. "references/guide.md") to a file inside the skill folder, or says why not.
 * `..`, absolute paths and other folders are refused outright; an existing symbolic link on the way is allowed only
 * when its target stays inside the skill folder. The target itself need not exist (write_file creates it).
 */
export async function resolveSupportPath(skillDir: string, requested: string): Promise<SupportPath> {
  const shown = JSON.stringify(requested.length > 200 ? `${requested.slice(0, 200)}…` : requested);
  if (requested.trim() === "") return { ok: false, error: "The file path is empty; give e.g. references/guide.md." };
  if (requested.includes("\0")) return { ok: false, error: "The file path contains a NUL byte." };
  if (requested.includes("\\")) return { ok: false, error: `File path ${shown} contains a backslash; use forward slashes.` };
  if (path.isAbsolute(requested) || requested.startsWith("~")) {
    return { ok: false, error: `File path ${shown} is absolute; give a path relative to the skill folder.` };
  }
  const segments = requested.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) return { ok: false, error: `File path ${shown} contains "..", which is not allowed.` };
  const folder = segments[0] ?? "";
  if (!(SUPPORT_FOLDERS as readonly string[]).includes(folder) || segments.length < 2) {
    return {
      ok: false,
      error: `File path ${shown} is not inside one of the skill's ${SUPPORT_FOLDERS.map((f) => `${f}/`).join(", ")} folders.`,
    };
  }

  const realSkillDir = await fs.realpath(skillDir);
  let current = skillDir;
  for (const segment of segments) {
    current = path.join(current, segment);
    const stats = await fs.lstat(current).catch(() => undefined);
    if (stats === undefined) break;
    if (!stats.isSymbolicLink()) continue;
    const target = await fs.realpath(current).catch(() => undefined);
    if (target === undefined || !isWithin(realSkillDir, target)) {
      return { ok: false, error: `File path ${shown} leads outside the skill folder through a symbolic link.` };
    }
  }
  return { ok: true, absolute: path.join(skillDir, ...segments), relative: segments.join("/") };
}

export type SupportFileText = { ok: true; text: string; bytes: number } | { ok: false; error: string };

/** Reads a resolved support file as UTF-8 text, refusing folders, special files, oversized and binary files. */
export async function readSupportFile(resolved: { absolute: string; relative: string }, maxBytes: number): Promise<SupportFileText> {
  const shown = resolved.relative;
  let size: number;
  try {
    const stats = await fs.stat(resolved.absolute);
    if (stats.isDirectory()) return { ok: false, error: `${shown} is a folder; the file list in skill_view shows its files.` };
    if (!stats.isFile()) return { ok: false, error: `${shown} is not a regular file.` };
    size = stats.size;
  } catch (error) {
    return { ok: false, error: missingMessage(error, shown) };
  }
  if (size > maxBytes) {
    return { ok: false, error: `${shown} is too large (${formatBytes(size)}; the limit is ${formatBytes(maxBytes)}).` };
  }
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(resolved.absolute);
  } catch (error) {
    return { ok: false, error: missingMessage(error, shown) };
  }
  if (looksBinary(bytes)) return { ok: false, error: `${shown} is a binary file; only text files can be viewed.` };
  return { ok: true, text: bytes.toString("utf8"), bytes: bytes.length };
}

export interface SupportFileInfo {
  path: string;
  bytes: number;
}

/** Regular files in the support folders, sorted; links and anything past the listing limits are left out. */
export async function listSupportFiles(skillDir: string): Promise<SupportFileInfo[]> {
  const files: SupportFileInfo[] = [];
  const walk = async (relative: string, depth: number): Promise<void> => {
    if (depth > MAX_LIST_DEPTH || files.length >= MAX_LISTED_FILES) return;
    const entries = await fs.readdir(path.join(skillDir, relative), { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (files.length >= MAX_LISTED_FILES) return;
      const child = `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        await walk(child, depth + 1);
      } else if (entry.isFile()) {
        const stats = await fs.stat(path.join(skillDir, child)).catch(() => undefined);
        if (stats !== undefined) files.push({ path: child, bytes: stats.size });
      }
    }
  };
  for (const folder of SUPPORT_FOLDERS) await walk(folder, 1);
  return files;
}

function missingMessage(error: unknown, shown: string): string {
  const code = errorCode(error);
  if (code === undefined) throw error;
  if (code === "ENOENT" || code === "ENOTDIR") return `File not found: ${shown}.`;
  if (code === "ELOOP") return `${shown} has too many levels of symbolic links.`;
  return `${shown} cannot be read (${code}).`;
}
