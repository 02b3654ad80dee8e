import path from "node:path";
import { errorCode } from "../builtin-tools/fs-errors.js";
import { checkStoredText, describeRefusal } from "../prompt/stored-text-guard.js";
import type { FileLockOptions } from "./file-lock.js";
import { fileMemoryStorage } from "./file-memory-documents.js";
import { memoryDocumentKey, type MemoryDocuments, type MemoryStorage } from "./memory-documents.js";
import { cleanEntry, fileTextOf, matchingEntries, normalizeEntry, parseEntries, renderedSize } from "./memory-entries.js";
import { detectSecret } from "./secret-guard.js";

export type MemoryTarget = "memory" | "user";

export const MEMORY_FILE_NAMES: Readonly<Record<MemoryTarget, string>> = { memory: "MEMORY.md", user: "USER.md" };
export const DEFAULT_MEMORY_LIMITS: Readonly<Record<MemoryTarget, number>> = { memory: 2_200, user: 1_375 };

/** Where the built-in files live under a Hermes home. */
export function memoryDirOf(hermesHome: string): string {
  return path.join(hermesHome, "memory");
}

export interface MemoryFileState {
  target: MemoryTarget;
  fileName: string;
  /** The file as stored (empty when it does not exist yet). */
  text: string;
  entries: string[];
  /** Size counted against the limit (see memory-entries.ts). */
  chars: number;
  limit: number;
}

export type MemoryErrorCode = "empty" | "secret" | "injection" | "over_limit" | "no_match" | "ambiguous" | "busy" | "io";

export type MemoryReadResult = { ok: true; state: MemoryFileState } | { ok: false; code: "io"; error: string };

export type MemoryEditResult =
  | { ok: true; changed: boolean; note: string; state: MemoryFileState }
  | { ok: false; code: MemoryErrorCode; error: string };

export interface MemoryStoreOptions {
  /** The folder of MEMORY.md (and of USER.md unless `userDir` is given); created on the first write. */
  dir: string;
  /** The folder of USER.md when it is not `dir` (a shared chat's notes beside the sender's own USER.md). */
  userDir?: string;
  limits?: Partial<Record<MemoryTarget, number>>;
  /** How long an edit waits for other writers (the file lock, or retries after a conflict) and how it pauses. */
  lock?: FileLockOptions;
  /** Where the files are kept; default the folders themselves on disk. `dir` and `userDir` must be below its root. */
  storage?: MemoryStorage;
}

type Edit = (entries: string[], state: MemoryFileState) => MemoryEditResult | { next: string[]; note: string };

const PREVIEW_CHARS = 80;
/** As the file lock's defaults (file-lock.ts), so waiting for a lock and retrying after conflicts give up alike. */
const DEFAULT_WAIT_MS = 15_000;
const DEFAULT_RETRY_DELAY_MS = 20;

/**
 * MEMORY.md and USER.md: bounded lists of `§` entries. Every change is a read-modify-write that stores only while
 * the document is still what was read (memory-documents.ts), tried again on a conflict, so concurrent writers (other
 * processes, other store instances, other machines on one database) never lose each other's entries; on files it
 * runs under the file's lock, so writers take turns instead of retrying.
 */
export class MemoryStore {
  readonly dir: string;
  readonly userDir: string;
  private readonly limits: Record<MemoryTarget, number>;
  private readonly lockOptions: FileLockOptions;
  private readonly root: string;
  private readonly documents: MemoryDocuments;

  constructor(options: MemoryStoreOptions) {
    this.dir = options.dir;
    this.userDir = options.userDir ?? options.dir;
    this.limits = { ...DEFAULT_MEMORY_LIMITS, ...options.limits };
    this.lockOptions = options.lock ?? {};
    const storage = options.storage ?? fileMemoryStorage(path.parse(path.resolve(this.dir)).root, this.lockOptions);
    this.root = storage.root;
    this.documents = storage.documents;
  }

  pathOf(target: MemoryTarget): string {
    return path.join(target === "user" ? this.userDir : this.dir, MEMORY_FILE_NAMES[target]);
  }

  /** The document key of the target's file (its path below the storage root). */
  keyOf(target: MemoryTarget): string {
    return memoryDocumentKey(this.root, path.resolve(this.pathOf(target)));
  }

  async read(target: MemoryTarget): Promise<MemoryReadResult> {
    try {
      return { ok: true, state: (await this.load(target)).state };
    } catch (error) {
      return { ok: false, code: "io", error: this.ioMessage(target, error) };
    }
  }

  async add(target: MemoryTarget, content: string): Promise<MemoryEditResult> {
    const entry = cleanEntry(content);
    if (entry === "") return fail("empty", "The content is empty; say what to remember.");
    const refused = refuseSecret(entry) ?? refuseInjection(entry);
    if (refused) return refused;
    return this.edit(target, (entries, state) => {
      const duplicate = entries.find((existing) => normalizeEntry(existing) === normalizeEntry(entry));
      if (duplicate !== undefined) {
        return { ok: true, changed: false, note: `Already saved in ${state.fileName} as "${preview(duplicate)}"; not added again.`, state };
      }
      return { next: [...entries, entry], note: `Added to ${state.fileName}.` };
    });
  }

  /** Replaces the one entry containing `oldText`; identical copies of it (hand-made duplicates) are merged. */
  async replace(target: MemoryTarget, oldText: string, content: string): Promise<MemoryEditResult> {
    const entry = cleanEntry(content);
    if (oldText.trim() === "") return fail("empty", "old_text is empty; quote part of the entry to replace.");
    if (entry === "") return fail("empty", "The new content is empty; use remove to delete an entry.");
    const refused = refuseSecret(entry) ?? refuseInjection(entry);
    if (refused) return refused;
    return this.edit(target, (entries, state) => {
      const found = findOne(entries, oldText, state);
      if (!Array.isArray(found)) return found;
      const [first] = found;
      const others = entries.filter((existing, index) => !found.includes(index) && normalizeEntry(existing) === normalizeEntry(entry));
      const next = entries.flatMap((existing, index) => {
        if (index !== first) return found.includes(index) ? [] : [existing];
        return others.length > 0 ? [] : [entry];
      });
      const note = others.length > 0 ? `Replaced; the new text was already an entry of ${state.fileName}, so the two were merged.` : `Replaced in ${state.fileName}.`;
      return { next, note };
    });
  }

  async remove(target: MemoryTarget, oldText: string): Promise<MemoryEditResult> {
    if (oldText.trim() === "") return fail("empty", "old_text is empty; quote part of the entry to remove.");
    return this.edit(target, (entries, state) => {
      const found = findOne(entries, oldText, state);
      if (!Array.isArray(found)) return found;
      return { next: entries.filter((_, index) => !found.includes(index)), note: `Removed from ${state.fileName}.` };
    });
  }

  private async edit(target: MemoryTarget, change: Edit): Promise<MemoryEditResult> {
    try {
      const key = this.keyOf(target);
      if (!this.documents.exclusive) return await this.editUntilStored(target, key, change);
      const locked = await this.documents.exclusive(key, () => this.editUntilStored(target, key, change));
      return locked.ok ? locked.value : busy(target);
    } catch (error) {
      return fail("io", this.ioMessage(target, error));
    }
  }

  /** Reads, applies `change` and stores on the version read; after a conflict all of it again, within the lock's timeout. */
  private async editUntilStored(target: MemoryTarget, key: string, change: Edit): Promise<MemoryEditResult> {
    const now = this.lockOptions.now ?? Date.now;
    const deadline = now() + (this.lockOptions.timeoutMs ?? DEFAULT_WAIT_MS);
    for (;;) {
      const { state, version } = await this.load(target);
      const outcome = this.apply(state, change);
      if (!("text" in outcome)) return outcome;
      const stored = await this.documents.write(key, outcome.text, version);
      if (stored.ok) return { ok: true, changed: true, note: outcome.note, state: { ...state, text: outcome.text, entries: outcome.next, chars: outcome.chars } };
      if (stored.reason === "busy" || now() >= deadline) return busy(target);
      const sleep = this.lockOptions.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
      await sleep((this.lockOptions.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS) * (0.5 + (this.lockOptions.random ?? Math.random)()));
    }
  }

  private apply(state: MemoryFileState, change: Edit): MemoryEditResult | { text: string; next: string[]; note: string; chars: number } {
    const outcome = change(state.entries, state);
    if (!("next" in outcome)) return outcome;
    const chars = renderedSize(outcome.next);
    // Shrinking is always allowed, so a file that a person made too long can still be consolidated.
    if (chars > state.limit && chars > state.chars) {
      return fail(
        "over_limit",
        `${state.fileName} would be ${fmt(chars)} characters, over its limit of ${fmt(state.limit)} ` +
          `(it is ${fmt(state.chars)} now). Nothing was written. Consolidate first: merge related entries ` +
          `with replace or remove outdated ones, then try again.`,
      );
    }
    const text = fileTextOf(outcome.next);
    if (text === fileTextOf(state.entries) && text === state.text) {
      return { ok: true, changed: false, note: `${state.fileName} already says that; nothing changed.`, state };
    }
    return { text, next: outcome.next, note: outcome.note, chars };
  }

  private async load(target: MemoryTarget): Promise<{ state: MemoryFileState; version: number | undefined }> {
    const stored = await this.documents.read(this.keyOf(target));
    const text = stored?.text ?? "";
    const entries = parseEntries(text);
    const state = { target, fileName: MEMORY_FILE_NAMES[target], text, entries, chars: renderedSize(entries), limit: this.limits[target] };
    return { state, version: stored?.version };
  }

  private ioMessage(target: MemoryTarget, error: unknown): string {
    const code = errorCode(error);
    // Without an errno code this is a bug, not a file-system condition the model could work around.
    if (code === undefined) throw error;
    return `${MEMORY_FILE_NAMES[target]} could not be read or written (${code}); nothing was changed.`;
  }
}

function busy(target: MemoryTarget): MemoryEditResult {
  return fail("busy", `Memory is busy (${MEMORY_FILE_NAMES[target]} is being written by someone else); try again.`);
}

function findOne(entries: readonly string[], oldText: string, state: MemoryFileState): number[] | MemoryEditResult {
  const found = matchingEntries(entries, oldText);
  if (found.length === 0) {
    return fail("no_match", `No entry of ${state.fileName} contains "${preview(oldText)}" (0 matches). Read the file and quote part of one entry exactly.`);
  }
  const distinct = new Set(found.map((index) => normalizeEntry(entries[index] ?? "")));
  if (distinct.size > 1) {
    const listed = found.map((index) => `- ${preview(entries[index] ?? "")}`).join("\n");
    return fail(
      "ambiguous",
      `"${preview(oldText)}" matches ${found.length} entries of ${state.fileName}; quote more of the one you mean. Matches:\n${listed}`,
    );
  }
  return found;
}

function refuseSecret(entry: string): MemoryEditResult | undefined {
  const kind = detectSecret(entry);
  if (kind === undefined) return undefined;
  return fail(
    "secret",
    `Refused: the content looks like it contains a secret (${kind}). Passwords, API keys and tokens must never be ` +
      `saved to memory; nothing was written. Save only the non-secret fact (e.g. where the credential is configured).`,
  );
}

/** Memory is shown to the model at the start of every session, so it must not carry instructions aimed at it. */
function refuseInjection(entry: string): MemoryEditResult | undefined {
  const check = checkStoredText(entry);
  if (check.ok) return undefined;
  return fail("injection", describeRefusal("the memory entry", check));
}

function fail(code: MemoryErrorCode, error: string): MemoryEditResult {
  return { ok: false, code, error };
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const chars = [...flat];
  return chars.length <= PREVIEW_CHARS ? flat : `${chars.slice(0, PREVIEW_CHARS - 1).join("")}…`;
}

function fmt(value: number): string {
  return value.toLocaleString("en-US");
}
