import { findMatches } from "../builtin-tools/text-match.js";

export type PatchStrategy = "exact" | "whitespace" | "block-anchored";

export type PatchOutcome =
  | { ok: true; content: string; strategy: PatchStrategy }
  | { ok: false; error: string; reason: "empty" | "not-found" | "ambiguous" };

/** Middle lines of a block-anchored match must be at least this similar (bigram Dice coefficient). */
export const BLOCK_SIMILARITY_THRESHOLD = 0.6;
const MIN_BLOCK_LINES = 3;

interface Span {
  start: number;
  end: number;
}

/**
 * Replaces exactly one occurrence of `oldText`. Models often re-type a block with different indentation or line
 * wrapping, or misremember a line in its middle, so after the exact match fails two looser strategies are tried
 * in order: whitespace-normalised, then anchored on the block's first and last lines. A strategy that finds more
 * than one place refuses rather than guess.
 */
export function applyFuzzyPatch(content: string, oldText: string, newText: string): PatchOutcome {
  if (oldText.trim() === "") return { ok: false, reason: "empty", error: "old_string is empty." };

  const exact = findMatches(content, oldText);
  if (exact.length > 1) return ambiguous("exactly", exact.length);
  const first = exact[0];
  if (first !== undefined) return replaced(content, { start: first, end: first + oldText.length }, newText, "exact");

  const loose = whitespaceMatches(content, oldText);
  if (loose.length > 1) return ambiguous("after normalising whitespace", loose.length);
  const looseSpan = loose[0];
  if (looseSpan !== undefined) return replaced(content, looseSpan, newText, "whitespace");

  const blocks = blockAnchoredMatches(content, oldText);
  if (blocks.length > 1) return ambiguous("by its first and last lines", blocks.length);
  const block = blocks[0];
  if (block !== undefined) return replaced(content, block, newText, "block-anchored");

  return {
    ok: false,
    reason: "not-found",
    error:
      "old_string was not found, not even after normalising whitespace or by its first and last lines. View the " +
      "skill again and copy the text to replace exactly.",
  };
}

function replaced(content: string, span: Span, newText: string, strategy: PatchStrategy): PatchOutcome {
  return { ok: true, strategy, content: content.slice(0, span.start) + newText + content.slice(span.end) };
}

function ambiguous(how: string, count: number): PatchOutcome {
  return {
    ok: false,
    reason: "ambiguous",
    error: `old_string matches ${count} places ${how}; include more surrounding text so it matches exactly one.`,
  };
}

/** Spans of `content` equal to `needle` once runs of whitespace count as one space and both ends are trimmed. */
function whitespaceMatches(content: string, needle: string): Span[] {
  const target = needle.trim().replace(/\s+/g, " ");
  const normal: string[] = [];
  const origin: number[] = [];
  for (let index = 0; index < content.length; index += 1) {
    const char = content.charAt(index);
    if (/\s/.test(char)) {
      if (normal[normal.length - 1] === " ") continue;
      normal.push(" ");
    } else {
      normal.push(char);
    }
    origin.push(index);
  }
  const normalText = normal.join("");
  return findMatches(normalText, target).map((start) => {
    const last = origin[start + target.length - 1] ?? content.length - 1;
    return { start: origin[start] ?? 0, end: last + 1 };
  });
}

interface Line {
  text: string;
  start: number;
  end: number;
}

/**
 * Whole-line spans whose first and last lines equal the needle's (ignoring indentation) and whose lines in between
 * are similar enough. The block may be a few lines longer or shorter than the needle.
 */
function blockAnchoredMatches(content: string, needle: string): Span[] {
  const wanted = needle.trim().split(/\r?\n/).map((line) => line.trim());
  if (wanted.length < MIN_BLOCK_LINES) return [];
  const firstWanted = wanted[0] ?? "";
  const lastWanted = wanted[wanted.length - 1] ?? "";
  if (firstWanted === "" || lastWanted === "") return [];
  const wantedMiddle = wanted.slice(1, -1).join("\n");
  const slack = Math.max(2, Math.ceil(wanted.length / 2));

  const lines = splitWithOffsets(content);
  const spans: Span[] = [];
  for (let from = 0; from < lines.length; from += 1) {
    if (lines[from]?.text.trim() !== firstWanted) continue;
    const minTo = from + Math.max(1, wanted.length - 1 - slack);
    const maxTo = Math.min(lines.length - 1, from + wanted.length - 1 + slack);
    for (let to = minTo; to <= maxTo; to += 1) {
      if (lines[to]?.text.trim() !== lastWanted) continue;
      const middle = lines.slice(from + 1, to).map((line) => line.text.trim()).join("\n");
      if (similarity(middle, wantedMiddle) >= BLOCK_SIMILARITY_THRESHOLD) {
        spans.push({ start: lines[from]?.start ?? 0, end: lines[to]?.end ?? 0 });
      }
      // The nearest closing line decides; a later one would swallow text the model did not mean.
      break;
    }
  }
  return spans;
}

function splitWithOffsets(content: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (;;) {
    const newline = content.indexOf("\n", start);
    const end = newline === -1 ? content.length : newline;
    const text = content.slice(start, end).replace(/\r$/, "");
    lines.push({ text, start, end: start + text.length });
    if (newline === -1) return lines;
    start = newline + 1;
  }
}

/** Dice coefficient over character bigrams of whitespace-normalised text: 1 for equal, 0 for nothing shared. */
export function similarity(a: string, b: string): number {
  const left = a.replace(/\s+/g, " ").trim();
  const right = b.replace(/\s+/g, " ").trim();
  if (left === right) return 1;
  if (left.length < 2 || right.length < 2) return 0;
  const counts = new Map<string, number>();
  for (let index = 0; index < left.length - 1; index += 1) {
    const pair = left.slice(index, index + 2);
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  let shared = 0;
  for (let index = 0; index < right.length - 1; index += 1) {
    const pair = right.slice(index, index + 2);
    const available = counts.get(pair) ?? 0;
    if (available > 0) {
      shared += 1;
      counts.set(pair, available - 1);
    }
  }
  return (2 * shared) / (left.length - 1 + right.length - 1);
}
