import type { AuditResult } from "./audit-reply.js";

export const LEARNING_MARKER = "[learning]";
const NEXT_TIME = "next time:";
const LESSON_SEPARATOR = " | ";
export const MAX_LESSON_CHARS = 160;

/**
 * The form lessons are compared in: compatibility-folded, lower-case, punctuation and spacing ignored, so "Cite
 * sources." and "cite sources" are one lesson.
 */
export function lessonKey(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** The lessons an earlier learning entry recorded, or none when the entry is not one of ours. */
export function recordedLessons(entry: string): string[] {
  if (!entry.startsWith(LEARNING_MARKER)) return [];
  const at = entry.indexOf(NEXT_TIME);
  if (at === -1) return [];
  return entry
    .slice(at + NEXT_TIME.length)
    .split(LESSON_SEPARATOR)
    .map((lesson) => lesson.trim())
    .filter((lesson) => lesson !== "");
}

/** What the audit teaches: its own lessons, or, when it gave none, the plain lesson of what was missed. */
export function lessonsOf(audit: AuditResult): string[] {
  const own = audit.learnings
    // The separator inside a lesson would split it in two when the entry is read back.
    .map((lesson) => clipAtWord(lesson.replace(/\s+/g, " ").replace(/\s*\|\s*/g, " / ").trim(), MAX_LESSON_CHARS))
    .filter((lesson) => lesson !== "");
  if (own.length > 0) return own;
  if (audit.missing.length === 0) return [];
  return [clipAtWord(`also cover ${audit.missing.map((dimension) => dimension.name).join(", ")}`, MAX_LESSON_CHARS)];
}

/**
 * One MEMORY.md entry for one audit, e.g.
 * `[learning] 2026-11-30 research-answer-quality: covered Sources cited; missing Recency checked; next time: …`.
 * Lessons that do not fit in `maxChars` are left out; the first one is shortened rather than dropped.
 */
export function learningEntry(audit: AuditResult, lessons: readonly string[], date: string, maxChars: number): string | undefined {
  if (lessons.length === 0) return undefined;
  const parts: string[] = [];
  if (audit.covered.length > 0) parts.push(`covered ${audit.covered.map((dimension) => dimension.name).join(", ")}`);
  if (audit.missing.length > 0) parts.push(`missing ${audit.missing.map((dimension) => dimension.name).join(", ")}`);
  const head = `${LEARNING_MARKER} ${date} ${audit.frameworkId}: ${[...parts, NEXT_TIME].join("; ")} `;
  let entry = "";
  for (const lesson of lessons) {
    const next = entry === "" ? `${head}${lesson}` : `${entry}${LESSON_SEPARATOR}${lesson}`;
    if (next.length <= maxChars) entry = next;
    else if (entry === "") entry = `${head}${clipAtWord(lesson, Math.max(20, maxChars - head.length))}`;
  }
  return entry;
}

export function clipAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, "")}…`;
}
