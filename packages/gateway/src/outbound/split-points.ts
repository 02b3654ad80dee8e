import { protectedOffsets } from "./inline-spans.js";
import type { MarkdownLine } from "./markdown-lines.js";

/**
 * Where a chunk may end, best first: a paragraph (or code block, or heading) boundary, a blank line inside code, a
 * line break, a sentence end, a space. A split point is the index where the chunk's text stops; the separator after
 * it (spaces, line breaks) is dropped by the chunker.
 */
export const SPLIT_RANKS = ["paragraph", "code-paragraph", "line", "sentence", "space"] as const;
export type SplitRank = (typeof SPLIT_RANKS)[number];

const RANK_INDEX: Record<SplitRank, number> = { paragraph: 0, "code-paragraph": 1, line: 2, sentence: 3, space: 4 };

const SENTENCE_END = /[.!?…。！？]+["'”’)\]*_]*/g;
const FULL_WIDTH_STOP = /[。！？]/;
const WHITESPACE_RUN = /[ \t]+/g;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;
const FENCE_RUN = /`{3,}|~{3,}/y;
const LIST_NUMBER = /^\s*\d*$/;

export class SplitPoints {
  private readonly clear: number[][] = SPLIT_RANKS.map(() => []);
  private readonly guarded: number[][] = SPLIT_RANKS.map(() => []);

  /** Positions must arrive in ascending order per rank. */
  add(rank: SplitRank, position: number, insideSpan: boolean): void {
    const lists = insideSpan ? this.guarded : this.clear;
    lists[RANK_INDEX[rank]]?.push(position);
  }

  /** The last split point of `rank` in [low, high]; `insideSpans` asks for those inside code spans and links. */
  latest(rank: SplitRank, low: number, high: number, insideSpans = false): number | undefined {
    const list = (insideSpans ? this.guarded : this.clear)[RANK_INDEX[rank]] ?? [];
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const middle = (lo + hi) >> 1;
      if ((list[middle] ?? Infinity) <= high) lo = middle + 1;
      else hi = middle;
    }
    const found = list[lo - 1];
    return found !== undefined && found >= low ? found : undefined;
  }
}

/** Whether the text continuing after a mid-line cut would start with a fence run, opening or closing a code block. */
export function continuationLooksLikeFence(text: string, position: number): boolean {
  let at = position;
  while (text[at] === " " || text[at] === "\t") at += 1;
  FENCE_RUN.lastIndex = at;
  return FENCE_RUN.test(text);
}

function addWithinLine(points: SplitPoints, text: string, line: MarkdownLine): void {
  const content = text.slice(line.start, line.end);
  const firstVisible = content.search(/\S/);
  if (firstVisible === -1) return;
  const guarded = line.inCode ? new Uint8Array(content.length + 1) : protectedOffsets(content);
  const usable = (offset: number): boolean => !continuationLooksLikeFence(text, line.start + offset);

  if (!line.inCode) {
    for (const match of content.matchAll(SENTENCE_END)) {
      const offset = match.index + match[0].length;
      if (offset >= content.length || LIST_NUMBER.test(content.slice(0, match.index))) continue;
      const followedBySpace = /[ \t]/.test(content[offset] ?? "") && /\S/.test(content.slice(offset));
      if ((followedBySpace || FULL_WIDTH_STOP.test(match[0])) && usable(offset)) {
        points.add("sentence", line.start + offset, guarded[offset] === 1);
      }
    }
  }
  for (const match of content.matchAll(WHITESPACE_RUN)) {
    const offset = match.index;
    const trailing = offset + match[0].length >= content.length;
    if (offset <= firstVisible || trailing || !usable(offset)) continue;
    points.add("space", line.start + offset, guarded[offset] === 1);
  }
}

function lineEndRank(line: MarkdownLine, next: MarkdownLine | undefined, nextVisible: MarkdownLine | undefined, text: string): SplitRank | null {
  // Cutting right after an opening fence or right before a closing one would leave an empty code block behind.
  if (line.blank || line.kind === "open" || nextVisible?.kind === "close") return null;
  if (line.kind === "close" || nextVisible?.kind === "open" || nextVisible === undefined) return "paragraph";
  if (line.inCode) return next?.blank ? "code-paragraph" : "line";
  if (next?.blank || HEADING.test(text.slice(nextVisible.start, nextVisible.end))) return "paragraph";
  return "line";
}

export function findSplitPoints(text: string, lines: readonly MarkdownLine[]): SplitPoints {
  const nextVisible: (MarkdownLine | undefined)[] = new Array(lines.length);
  let following: MarkdownLine | undefined;
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    nextVisible[index] = following;
    const line = lines[index];
    if (line && !line.blank) following = line;
  }

  const points = new SplitPoints();
  lines.forEach((line, index) => {
    if (line.kind === "content") addWithinLine(points, text, line);
    if (index === lines.length - 1) return;
    const rank = lineEndRank(line, lines[index + 1], nextVisible[index], text);
    if (rank) points.add(rank, line.end, false);
  });
  return points;
}
