/**
 * Line structure of a markdown text as far as chunking cares: which lines open or close a fenced code block, which lie
 * inside one, and which fence is open at any position. Fences follow CommonMark (three or more backticks or tildes, a
 * closing run of the same character at least as long, a backtick fence's info string free of backticks), except that
 * any indentation is accepted because models indent fences inside list items.
 */

export interface Fence {
  indent: string;
  /** The run that opened the block, e.g. "```" or "~~~~". */
  marker: string;
  /** Info string after the marker (language and attributes), as written. */
  info: string;
}

export type LineKind = "open" | "close" | "content";

export interface MarkdownLine {
  start: number;
  /** Index of the line's "\n", or the text's length for the last line. */
  end: number;
  kind: LineKind;
  blank: boolean;
  /** Inside a fenced block (content lines only; fence lines themselves are not). */
  inCode: boolean;
  fenceBefore: Fence | null;
  fenceAfter: Fence | null;
}

const OPENING = /^([ \t]*)(`{3,}|~{3,})(.*)$/;
const CLOSING = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;

/** The fence this line opens, when it opens one. */
export function parseOpeningFence(line: string): Fence | null {
  const match = OPENING.exec(line);
  if (!match) return null;
  const [, indent = "", marker = "", rest = ""] = match;
  if (marker.startsWith("`") && rest.includes("`")) return null;
  return { indent, marker, info: rest.trimEnd() };
}

export function closesFence(line: string, fence: Fence): boolean {
  const match = CLOSING.exec(line);
  if (!match) return false;
  const run = match[1] ?? "";
  return run[0] === fence.marker[0] && run.length >= fence.marker.length;
}

/** The line that reopens `fence` at the top of a new chunk, with or without its info string. */
export function fenceOpeningLine(fence: Fence, withInfo: boolean): string {
  return fence.indent + fence.marker + (withInfo ? fence.info : "");
}

export function fenceClosingLine(fence: Fence): string {
  return fence.indent + fence.marker;
}

export function scanMarkdownLines(text: string): MarkdownLine[] {
  const lines: MarkdownLine[] = [];
  let open: Fence | null = null;
  let start = 0;
  while (start <= text.length) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline;
    const content = text.slice(start, end);
    const blank = content.trim() === "";
    const before: Fence | null = open;
    let kind: LineKind = "content";
    if (before === null) {
      const opened = parseOpeningFence(content);
      if (opened) {
        kind = "open";
        open = opened;
      }
    } else if (closesFence(content, before)) {
      kind = "close";
      open = null;
    }
    lines.push({ start, end, kind, blank, inCode: kind === "content" && before !== null, fenceBefore: before, fenceAfter: open });
    if (newline === -1) break;
    start = newline + 1;
  }
  return lines;
}

/** Index into `lines` of the line holding `position` (a "\n" belongs to the line it ends). */
export function lineIndexAt(lines: readonly MarkdownLine[], position: number): number {
  let low = 0;
  let high = lines.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((lines[middle]?.start ?? 0) <= position) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The fence still open after text[0, position) — what a chunk ending there must close. */
export function fenceOpenAt(lines: readonly MarkdownLine[], position: number): Fence | null {
  const line = lines[lineIndexAt(lines, position)];
  if (!line) return null;
  // A fence line only takes effect once the whole of it is inside the chunk.
  return position >= line.end ? line.fenceAfter : line.fenceBefore;
}
