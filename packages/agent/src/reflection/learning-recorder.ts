import { normalizeEntry, renderedSize } from "../memory/memory-entries.js";
import type { MemoryManager } from "../memory/memory-manager.js";
import { MemoryStore } from "../memory/memory-store.js";
import { detectSecret } from "../memory/secret-guard.js";
import { silentLogger, type Logger } from "../observability/logger.js";
import type { AuditResult } from "./audit-reply.js";
import { learningEntry, lessonKey, lessonsOf, recordedLessons } from "./learning-entry.js";

export const DEFAULT_MAX_LESSONS_PER_AUDIT = 2;
export const DEFAULT_MAX_LEARNING_CHARS = 360;

export interface LearningRecorderOptions {
  memory: Pick<MemoryManager, "recordLearnings" | "context">;
  /** Reads MEMORY.md for de-duplication and the size check; defaults to a store on the manager's memory folder. */
  reader?: Pick<MemoryStore, "read">;
  /** MEMORY.md's limit when the built-in provider was given a non-default one (used by the default reader). */
  memoryLimit?: number;
  logger?: Logger;
  now?: () => number;
  maxLessonsPerAudit?: number;
  /** Longest entry written; memory is small and shared with everything else worth remembering. */
  maxEntryChars?: number;
}

export interface LearningRecordOutcome {
  /** Entries handed to memory and found in MEMORY.md afterwards. */
  recorded: string[];
  /** Entries handed to memory but not found afterwards (refused by the provider, or kept by an external one only). */
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
 * Turns audits into short `[learning]` entries in MEMORY.md through `MemoryManager.recordLearnings` (seed 000 §6.3).
 * Only lessons are worth keeping (seed 002 §7.5): an audit that missed nothing and taught nothing writes nothing, a
 * lesson already in memory is not written again, and nothing that looks like a secret is ever handed over.
 */
export class LearningRecorder {
  private readonly memory: Pick<MemoryManager, "recordLearnings" | "context">;
  private readonly reader: Pick<MemoryStore, "read">;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly maxLessonsPerAudit: number;
  private readonly maxEntryChars: number;

  constructor(options: LearningRecorderOptions) {
    this.memory = options.memory;
    const limits = options.memoryLimit === undefined ? undefined : { memory: options.memoryLimit };
    this.reader = options.reader ?? new MemoryStore({ dir: options.memory.context.memoryDir, limits });
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
    this.maxLessonsPerAudit = options.maxLessonsPerAudit ?? DEFAULT_MAX_LESSONS_PER_AUDIT;
    this.maxEntryChars = options.maxEntryChars ?? DEFAULT_MAX_LEARNING_CHARS;
  }

  async record(audits: readonly AuditResult[], source = "background-review"): Promise<LearningRecordOutcome> {
    const outcome: LearningRecordOutcome = { recorded: [], unconfirmed: [], duplicates: 0, secrets: 0, overLimit: 0 };
    const before = await this.reader.read("memory");
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

    await this.memory.recordLearnings(accepted.map((content) => ({ target: "memory", content, source })));
    const after = await this.reader.read("memory");
    const saved = new Set(after.ok ? after.state.entries.map(normalizeEntry) : []);
    for (const entry of accepted) (saved.has(normalizeEntry(entry)) ? outcome.recorded : outcome.unconfirmed).push(entry);
    if (outcome.unconfirmed.length > 0) this.logger.info("some learnings were not found in MEMORY.md after recording", { count: outcome.unconfirmed.length });
    return outcome;
  }
}
