import { promises as fs } from "node:fs";
import path from "node:path";
import { errorCode } from "../builtin-tools/fs-errors.js";
import { parseSkillDocument, type SkillFrontmatter } from "./frontmatter.js";
import type { SkillCandidate, SkillProblem, SkillScan } from "./skill-scan.js";

/** "official": a read-only root such as the bundled skills; "local": the folder the agent writes its own skills to. */
export type SkillSource = "official" | "local";

/** One usable skill as Tier 1 describes it, plus where its files are. */
export interface SkillEntry {
  name: string;
  description: string;
  displayName?: string;
  category?: string;
  version?: string;
  platforms?: string[];
  metadata?: Record<string, unknown>;
  source: SkillSource;
  root: string;
  dir: string;
  skillFile: string;
}

/** A skill hidden by a later root's skill of the same name. */
export interface SkillOverride {
  name: string;
  hiddenDir: string;
  winnerDir: string;
}

export interface SkillIndex {
  /** Usable skills by name, sorted by name. */
  skills: ReadonlyMap<string, SkillEntry>;
  /** Folders that are not usable skills, with the reason; never fatal. */
  problems: readonly SkillProblem[];
  overrides: readonly SkillOverride[];
}

/** The cacheable result of reading one SKILL.md: its metadata, or why it is not a skill. */
export type ParsedSkill = { ok: true; frontmatter: SkillFrontmatter } | { ok: false; reason: string };

export type SkillParser = (text: string, folderName: string) => ParsedSkill;

export const defaultSkillParser: SkillParser = (text, folderName) => {
  const parsed = parseSkillDocument(text, folderName);
  return parsed.ok ? { ok: true, frontmatter: parsed.frontmatter } : { ok: false, reason: parsed.error };
};

export async function parseCandidate(candidate: SkillCandidate, parser: SkillParser): Promise<ParsedSkill> {
  let text: string;
  try {
    text = await fs.readFile(candidate.skillFile, "utf8");
  } catch (error) {
    const code = errorCode(error);
    if (code === undefined) throw error;
    return { ok: false, reason: `SKILL.md cannot be read (${code})` };
  }
  return parser(text, candidate.folder);
}

/**
 * Applies the override order: roots are listed lowest priority first, so a later root's skill replaces an earlier
 * one of the same name. An invalid skill never hides a valid one; it is only reported.
 */
export function buildSkillIndex(
  scan: SkillScan,
  parsed: ReadonlyMap<SkillCandidate, ParsedSkill>,
  localSkillsDir: string | undefined,
): SkillIndex {
  const byName = new Map<string, SkillEntry>();
  const problems: SkillProblem[] = [...scan.problems];
  const overrides: SkillOverride[] = [];
  const localRoot = localSkillsDir === undefined ? undefined : path.resolve(localSkillsDir);

  for (const candidate of scan.candidates) {
    const outcome = parsed.get(candidate);
    if (outcome === undefined) continue;
    if (!outcome.ok) {
      problems.push({ root: candidate.root, folder: candidate.folder, path: candidate.skillFile, reason: outcome.reason });
      continue;
    }
    const entry = toEntry(candidate, outcome.frontmatter, path.resolve(candidate.root) === localRoot ? "local" : "official");
    const earlier = byName.get(entry.name);
    if (earlier !== undefined) overrides.push({ name: entry.name, hiddenDir: earlier.dir, winnerDir: entry.dir });
    byName.set(entry.name, entry);
  }

  const sorted = new Map([...byName.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { skills: sorted, problems, overrides };
}

function toEntry(candidate: SkillCandidate, frontmatter: SkillFrontmatter, source: SkillSource): SkillEntry {
  const entry: SkillEntry = {
    name: frontmatter.name,
    description: frontmatter.description,
    source,
    root: candidate.root,
    dir: candidate.dir,
    skillFile: candidate.skillFile,
  };
  if (frontmatter.displayName !== undefined) entry.displayName = frontmatter.displayName;
  if (frontmatter.category !== undefined) entry.category = frontmatter.category;
  if (frontmatter.version !== undefined) entry.version = frontmatter.version;
  if (frontmatter.platforms !== undefined) entry.platforms = [...frontmatter.platforms];
  if (frontmatter.metadata !== undefined) entry.metadata = frontmatter.metadata;
  return entry;
}

/** Distinct categories, sorted; skills without one are not represented. */
export function skillCategories(skills: Iterable<SkillEntry>): string[] {
  const categories = new Set<string>();
  for (const skill of skills) if (skill.category !== undefined) categories.add(skill.category);
  return [...categories].sort();
}
