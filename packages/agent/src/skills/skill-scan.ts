import { promises as fs, type Dirent } from "node:fs";
import path from "node:path";
import { errorCode } from "../builtin-tools/fs-errors.js";
import { formatBytes } from "../builtin-tools/text-file.js";

export const SKILL_FILE_NAME = "SKILL.md";
/** Loading limit; larger files are skipped. skill_manage writes far smaller files (see DEFAULT_MAX_SKILL_BYTES). */
export const MAX_SKILL_FILE_BYTES = 256 * 1024;

/** A skill folder whose SKILL.md exists; not yet parsed. mtime and size identify the version for the caches. */
export interface SkillCandidate {
  root: string;
  folder: string;
  dir: string;
  skillFile: string;
  mtimeMs: number;
  size: number;
}

/** A folder in a skill root that is not a usable skill, and why. */
export interface SkillProblem {
  root: string;
  folder: string;
  path: string;
  reason: string;
}

export interface SkillScan {
  candidates: SkillCandidate[];
  problems: SkillProblem[];
}

/**
 * Lists the skill folders of each root in order (folders sorted by name), using only readdir and lstat so an
 * unchanged tree can be recognised without reading any SKILL.md. A missing root is simply empty: the agent's own
 * skills folder does not exist until the first skill is made.
 */
export async function scanSkillRoots(roots: readonly string[]): Promise<SkillScan> {
  const scan: SkillScan = { candidates: [], problems: [] };
  for (const root of roots) {
    const entries = await listRoot(root, scan.problems);
    for (const entry of entries) await scanEntry(root, entry, scan);
  }
  return scan;
}

async function listRoot(root: string, problems: SkillProblem[]): Promise<Dirent[]> {
  try {
    const entries = await fs.readdir(root, { withFileTypes: true });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT") return [];
    if (code === undefined) throw error;
    problems.push({ root, folder: "", path: root, reason: `the skill folder cannot be read (${code})` });
    return [];
  }
}

async function scanEntry(root: string, entry: Dirent, scan: SkillScan): Promise<void> {
  // Hidden entries hold caches, temp files and version-control data, never skills.
  if (entry.name.startsWith(".")) return;
  const dir = path.join(root, entry.name);
  const problem = (reason: string): void => {
    scan.problems.push({ root, folder: entry.name, path: dir, reason });
  };
  // A linked folder could pull files from anywhere into the skill's readable tree, so links are not followed.
  if (entry.isSymbolicLink()) return problem("the skill folder is a symbolic link, which is not followed");
  if (!entry.isDirectory()) return;

  const skillFile = path.join(dir, SKILL_FILE_NAME);
  let stats;
  try {
    stats = await fs.lstat(skillFile);
  } catch (error) {
    const code = errorCode(error);
    if (code === undefined) throw error;
    return problem(code === "ENOENT" ? `the folder has no ${SKILL_FILE_NAME}` : `${SKILL_FILE_NAME} cannot be read (${code})`);
  }
  if (!stats.isFile()) return problem(`${SKILL_FILE_NAME} is not a regular file`);
  if (stats.size > MAX_SKILL_FILE_BYTES) {
    return problem(`${SKILL_FILE_NAME} is too large (${formatBytes(stats.size)}; the limit is ${formatBytes(MAX_SKILL_FILE_BYTES)})`);
  }
  scan.candidates.push({ root, folder: entry.name, dir, skillFile, mtimeMs: stats.mtimeMs, size: stats.size });
}

/** Identifies one version of one SKILL.md for the memory and disk caches. */
export function candidateKey(candidate: Pick<SkillCandidate, "skillFile" | "mtimeMs" | "size">): string {
  return `${candidate.skillFile}\u0000${candidate.mtimeMs}\u0000${candidate.size}`;
}

/** Stable text for the whole tree; equal fingerprints mean no SKILL.md was added, removed or changed. */
export function scanFingerprint(roots: readonly string[], scan: SkillScan): string {
  const parts = [roots.join("\u0001"), ...scan.candidates.map(candidateKey)];
  for (const problem of scan.problems) parts.push(`!${problem.path}\u0000${problem.reason}`);
  return parts.join("\u0002");
}
