import { promises as fs } from "node:fs";
import path from "node:path";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { writeFileAtomically } from "../builtin-tools/atomic-write.js";
import { errorCode } from "../builtin-tools/fs-errors.js";
import { validateFrontmatter } from "./frontmatter.js";
import type { ParsedSkill } from "./skill-index.js";
import { candidateKey } from "./skill-scan.js";

export const SKILL_SNAPSHOT_FILE_NAME = "skills-index.json";
const SNAPSHOT_FORMAT = 1;

const SnapshotEntrySchema = Type.Object({
  skillFile: Type.String(),
  mtimeMs: Type.Number(),
  size: Type.Number(),
  ok: Type.Boolean(),
  frontmatter: Type.Optional(Type.Unknown()),
  reason: Type.Optional(Type.String()),
});
type SnapshotEntry = Static<typeof SnapshotEntrySchema>;

const SnapshotSchema = Type.Object({
  format: Type.Literal(SNAPSHOT_FORMAT),
  entries: Type.Array(SnapshotEntrySchema),
});

/** One parsed SKILL.md version as the snapshot stores it. */
export interface SnapshotRecord {
  skillFile: string;
  mtimeMs: number;
  size: number;
  outcome: ParsedSkill;
}

export type SnapshotLoad =
  | { kind: "loaded"; records: Map<string, SnapshotRecord> }
  | { kind: "absent" }
  | { kind: "unusable"; reason: string };

/**
 * Reads a snapshot written by `saveSkillSnapshot`. Whatever is wrong with it (missing, corrupt, another format)
 * only costs a rebuild, so every failure is a value. Metadata is re-validated: the file is outside our control.
 */
export async function loadSkillSnapshot(file: string): Promise<SnapshotLoad> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    const code = errorCode(error);
    if (code === undefined) throw error;
    return code === "ENOENT" ? { kind: "absent" } : { kind: "unusable", reason: `cannot be read (${code})` };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { kind: "unusable", reason: "not valid JSON" };
  }
  if (!Value.Check(SnapshotSchema, data)) return { kind: "unusable", reason: "unexpected format" };

  const records = new Map<string, SnapshotRecord>();
  for (const entry of data.entries) {
    const outcome = outcomeOf(entry);
    if (outcome === undefined) return { kind: "unusable", reason: `invalid entry for ${entry.skillFile}` };
    records.set(candidateKey(entry), { skillFile: entry.skillFile, mtimeMs: entry.mtimeMs, size: entry.size, outcome });
  }
  return { kind: "loaded", records };
}

export async function saveSkillSnapshot(file: string, records: Iterable<SnapshotRecord>): Promise<void> {
  const entries: SnapshotEntry[] = [];
  for (const record of records) {
    const base = { skillFile: record.skillFile, mtimeMs: record.mtimeMs, size: record.size };
    entries.push(
      record.outcome.ok
        ? { ...base, ok: true, frontmatter: record.outcome.frontmatter }
        : { ...base, ok: false, reason: record.outcome.reason },
    );
  }
  await fs.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomically(file, JSON.stringify({ format: SNAPSHOT_FORMAT, entries }) + "\n");
}

function outcomeOf(entry: SnapshotEntry): ParsedSkill | undefined {
  if (!entry.ok) return entry.reason === undefined ? undefined : { ok: false, reason: entry.reason };
  const checked = validateFrontmatter(entry.frontmatter);
  if (!checked.ok || checked.frontmatter.name !== path.basename(path.dirname(entry.skillFile))) return undefined;
  return { ok: true, frontmatter: checked.frontmatter };
}
