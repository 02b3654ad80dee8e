import { fenceOpenAt, lineIndexAt, scanMarkdownLines, type Fence, type MarkdownLine } from "./markdown-lines.js";
import { SPLIT_RANKS, continuationLooksLikeFence, findSplitPoints, type SplitPoints } from "./split-points.js";
import { safeCutIndex } from "./utf16.js";

// A better kind of split point wins only if it keeps at least this share of the room; otherwise chunks get tiny.
const MIN_FILL = 0.5;
const BLANK_LINE = /[ \t]*\n/y;
const SPACES = /[ \t]*/y;
const VISIBLE = /\S/g;

/** Chooses where chunks of one markdown text end and where the next ones start. */
export class MarkdownCutter {
  readonly lines: readonly MarkdownLine[];
  private readonly points: SplitPoints;
  /** End of the last visible character: what lies beyond is trailing whitespace. */
  readonly contentEnd: number;

  constructor(readonly text: string) {
    this.lines = scanMarkdownLines(text);
    this.points = findSplitPoints(text, this.lines);
    this.contentEnd = text.trimEnd().length;
  }

  /** The fence a chunk ending (or starting) at `position` is inside of. */
  fenceAt(position: number): Fence | null {
    return fenceOpenAt(this.lines, position);
  }

  /** The line that begins exactly at `position`, if one does. */
  lineStartingAt(position: number): MarkdownLine | undefined {
    const line = this.lines[lineIndexAt(this.lines, position)];
    return line?.start === position ? line : undefined;
  }

  /** Whether a cut at `position` falls inside a line that opens or closes a code block. */
  cutsFenceLine(position: number): boolean {
    const line = this.lines[lineIndexAt(this.lines, position)];
    return line !== undefined && line.kind !== "content" && position > line.start && position < line.end;
  }

  /** Where the first chunk starts: leading blank lines are dropped, indentation is kept. */
  firstStart(): number {
    return this.skipBlankLines(0).position;
  }

  /** The chunk's text: from `start` to `end` minus trailing whitespace. */
  body(start: number, end: number): string {
    return this.text.slice(start, end).trimEnd();
  }

  /** Where the next chunk starts after a cut at `end`, past the separator the cut replaced. */
  nextStart(end: number): number {
    const { position, crossedLine } = this.skipBlankLines(end);
    if (crossedLine) return position;
    SPACES.lastIndex = position;
    SPACES.test(this.text);
    return SPACES.lastIndex;
  }

  /** Where a chunk starting at `start` ends so that its text takes at most `room` code units (`room` ≥ 1). */
  chooseEnd(start: number, room: number): number {
    const high = start + room;
    if (this.contentEnd <= high) return this.contentEnd;
    const low = this.firstVisibleAfter(start) + 1;
    const filled = Math.max(low, start + Math.ceil(room * MIN_FILL));
    for (const rank of SPLIT_RANKS) {
      const point = this.points.latest(rank, filled, high);
      if (point !== undefined) return point;
    }
    const anyPoint = this.latestOfAnyRank(low, high, false) ?? this.latestOfAnyRank(low, high, true);
    return anyPoint ?? this.hardCut(start, low, high);
  }

  private latestOfAnyRank(low: number, high: number, insideSpans: boolean): number | undefined {
    let best: number | undefined;
    for (const rank of SPLIT_RANKS) {
      const point = this.points.latest(rank, low, high, insideSpans);
      if (point !== undefined && (best === undefined || point > best)) best = point;
    }
    return best;
  }

  /**
   * No split point fits: cut mid-word between graphemes — but not inside a fence line (the block would lose its
   * fence) and not where the rest of the line would start with a fence run (it would open or close a block).
   */
  private hardCut(start: number, low: number, high: number): number {
    let cut = safeCutIndex(this.text, start, high);
    const line = this.lines[lineIndexAt(this.lines, cut)];
    if (line && this.cutsFenceLine(cut) && line.start - 1 >= low) return line.start - 1;
    while (cut > low && continuationLooksLikeFence(this.text, cut)) {
      const earlier = safeCutIndex(this.text, start, cut - 1);
      if (earlier >= cut) break;
      cut = earlier;
    }
    return cut;
  }

  private firstVisibleAfter(position: number): number {
    VISIBLE.lastIndex = position;
    const match = VISIBLE.exec(this.text);
    return match ? match.index : this.text.length;
  }

  private skipBlankLines(from: number): { position: number; crossedLine: boolean } {
    let position = from;
    let crossedLine = false;
    for (;;) {
      BLANK_LINE.lastIndex = position;
      if (!BLANK_LINE.test(this.text)) return { position, crossedLine };
      position = BLANK_LINE.lastIndex;
      crossedLine = true;
    }
  }
}
