import { renderedSize } from "../memory/memory-entries.js";
import { detectSecret } from "../memory/secret-guard.js";
import { silentLogger, type Logger } from "../observability/logger.js";
import type { AuditResult } from "./audit-reply.js";
import { learningEntry, lessonKey, lessonsOf, recordedLessons } from "./learning-entry.js";
import type { ReflectionMemory } from "./memory-port.js";

export const DEFAULT_MAX_LESSONS_PER_AUDIT = 2;
export const DEFAULT_MAX_LEARNING_CHARS = 360;

export interface LearningRecorderOptions {
  /** The reviewed conversation's memory: read for de-duplication and the size check, written with `add`. */
  memory: Pick<ReflectionMemory, "read" | "add">;
  logger?: Logger;
  now?: () => number;
  maxLessonsPerAudit?: number;
  /** Longest entry written; memory is small and shared with everything else worth remembering. */
  maxEntryChars?: number;
}

export interface LearningRecordOutcome {
  /** Entries written to MEMORY.md. */
  recorded: string[];
  /** Entries memory refused (its own limit, secret or injection checks, a busy lock). */
  unconfirmed: string[];
  /** Lessons left out because memory (or this batch) already has them. */
  duplicates: number;
  /** Lessons or entries left out because they looked like they held a credential. */
  secrets: number;
  /** Entries left out because MEMORY.md would go over its limit. */
  overLimit: number;
  /** Why nothing could be checked or written, when that happened. */
  error?: string;
}

/**
 * Turns audits into short `[learning]` entries in the conversation's MEMORY.md (seed 000 §6.3).
 * Only lessons are worth keeping (seed 002 §7.5): an audit that missed nothing and taught nothing writes nothing, a
 * lesson already in memory is not written again, and nothing that looks like a secret is ever handed over.
 */
export class LearningRecorder {
  private readonly memory: Pick<ReflectionMemory, "read" | "add">;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly maxLessonsPerAudit: number;
  private readonly maxEntryChars: number;

  constructor(options: LearningRecorderOptions) {
    this.memory = options.memory;
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
    this.maxLessonsPerAudit = options.maxLessonsPerAudit ?? DEFAULT_MAX_LESSONS_PER_AUDIT;
    this.maxEntryChars = options.maxEntryChars ?? DEFAULT_MAX_LEARNING_CHARS;
  }

  async record(audits: readonly AuditResult[]): Promise<LearningRecordOutcome> {
    const outcome: LearningRecordOutcome = { recorded: [], unconfirmed: [], duplicates: 0, secrets: 0, overLimit: 0 };
    const before = await this.memory.read("memory");
    if (!before.ok) {
      this.logger.warn("learnings not recorded: MEMORY.md could not be read", { error: before.error });
      return { ...outcome, error: before.error };
    }
    const state = before.state;
    const known = new Set(state.entries.flatMap((entry) => recordedLessons(entry).map(lessonKey)));
    const existingText = state.entries.map(lessonKey);
    const isKnown = (key: string): boolean => known.has(key) || existingText.some((entry) => entry.includes(key));
    const date = new Date(this.now()).toISOString().slice(0, 10);

    const accepted: string[] = [];
    for (const audit of audits) {
      const lessons: string[] = [];
      for (const lesson of lessonsOf(audit)) {
        const key = lessonKey(lesson);
        if (key === "") continue;
        if (detectSecret(lesson) !== undefined) outcome.secrets += 1;
        else if (isKnown(key)) outcome.duplicates += 1;
        else if (lessons.length < this.maxLessonsPerAudit) {
          lessons.push(lesson);
          known.add(key);
        }
      }
      const entry = learningEntry(audit, lessons, date, this.maxEntryChars);
      if (entry === undefined) continue;
      if (detectSecret(entry) !== undefined) {
        outcome.secrets += 1;
        continue;
      }
      if (renderedSize([...state.entries, ...accepted, entry]) > state.limit) {
        outcome.overLimit += 1;
        this.logger.warn("learning not recorded: MEMORY.md would go over its limit", { framework: audit.frameworkId, chars: state.chars, limit: state.limit });
        continue;
      }
      accepted.push(entry);
    }
    if (outcome.secrets > 0) this.logger.warn("learnings dropped because they looked like secrets", { count: outcome.secrets });
    if (accepted.length === 0) return outcome;

    for (const entry of accepted) {
      const written = await this.memory.add("memory", entry);
      if (written.ok) outcome.recorded.push(entry);
      else {
        outcome.unconfirmed.push(entry);
        this.logger.info("learning not saved to memory", { reason: written.code });
      }
    }
    return outcome;
  }
}
