import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * Layers 1 and 2 of the tool result budget (seed 004): a single result over its tool's threshold, or a turn whose
 * results together exceed the per-turn budget, is written to a file and replaced in the conversation by a preview that
 * says where the full text is. Layer 3 is the step budget of the loop.
 */
export interface ResultBudgetOptions {
  /** Folder for full outputs, created on first use. */
  spillDir: string;
  defaultMaxChars: number;
  perTurnMaxChars: number;
  previewChars: number;
  /**
   * Told of each saved output before the model is told where it is (e.g. to copy it where the runs of other machines
   * can read it). When it fails, the model is told the full output could not be saved, as when the write fails.
   */
  onSpill?: (file: string, content: string) => Promise<void>;
  /**
   * The note names the saved file relative to this folder (the file tools' workspace root, where a relative path
   * starts) instead of by its absolute path, so the same words name the copy on a machine whose state folder lies
   * elsewhere. Absent: the absolute path.
   */
  notePathsRelativeTo?: string;
}

export const DEFAULT_RESULT_BUDGET = { defaultMaxChars: 100_000, perTurnMaxChars: 200_000, previewChars: 1_500 };

export interface BudgetedResult {
  toolCallId: string;
  toolName: string;
  content: string;
  /** Tool's own threshold. Infinity marks a tool that pages its own output (read_file): it is never spilled, since
   * telling the model to re-read a spilled read_file result with read_file would go round in circles. */
  maxChars?: number;
}

export interface BudgetedOutcome {
  content: string;
  spilledTo?: string;
}

const SPILL_NOTE_ALLOWANCE = 400;

export async function applyResultBudget(
  results: readonly BudgetedResult[],
  options: ResultBudgetOptions,
): Promise<BudgetedOutcome[]> {
  const outcomes: BudgetedOutcome[] = results.map((r) => ({ content: r.content }));

  for (const [i, result] of results.entries()) {
    const limit = result.maxChars ?? options.defaultMaxChars;
    if (result.content.length > limit) outcomes[i] = await spill(result, options);
  }

  let total = outcomes.reduce((sum, o) => sum + o.content.length, 0);
  if (total > options.perTurnMaxChars) {
    const largestFirst = [...outcomes.keys()]
      .filter((i) => outcomes[i]?.spilledTo === undefined && results[i]?.maxChars !== Infinity)
      .sort((a, b) => (outcomes[b]?.content.length ?? 0) - (outcomes[a]?.content.length ?? 0));
    for (const i of largestFirst) {
      if (total <= options.perTurnMaxChars) break;
      const result = results[i];
      const before = outcomes[i];
      // A result barely longer than a preview would grow once the note is added: spilling it cannot help.
      if (!result || !before || before.content.length <= options.previewChars + SPILL_NOTE_ALLOWANCE) continue;
      const after = await spill(result, options);
      outcomes[i] = after;
      total -= before.content.length - after.content.length;
    }
  }
  return outcomes;
}

async function spill(result: BudgetedResult, options: ResultBudgetOptions): Promise<BudgetedOutcome> {
  // Call ids repeat across turns and models, so each saved output gets a name of its own.
  const file = path.join(options.spillDir, `${safeFileName(result.toolCallId)}-${randomUUID().slice(0, 8)}.txt`);
  try {
    await mkdir(options.spillDir, { recursive: true });
    await writeFile(file, result.content, "utf8");
    await options.onSpill?.(file, result.content);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const preview = result.content.slice(0, options.previewChars);
    return {
      content: `${preview}\n\n[Output truncated: ${result.content.length} characters in total; the full output could not be saved (${reason}).]`,
    };
  }
  const preview = result.content.slice(0, options.previewChars);
  return {
    content:
      `${preview}\n\n[Output truncated: ${result.content.length} characters in total. ` +
      `The full output of ${result.toolName} was saved to ${nameForModel(file, options)}; read it in pages with read_file (offset/limit) if you need more.]`,
    spilledTo: file,
  };
}

function nameForModel(file: string, options: ResultBudgetOptions): string {
  if (options.notePathsRelativeTo === undefined) return file;
  return path.relative(options.notePathsRelativeTo, file).split(path.sep).join("/");
}

function safeFileName(id: string): string {
  const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 80);
  return cleaned.length > 0 ? cleaned : "result";
}
