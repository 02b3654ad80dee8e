import { MarkdownCutter } from "./markdown-cutter.js";
import { fenceClosingLine, fenceOpeningLine, type Fence } from "./markdown-lines.js";

export interface ChunkMarkdownOptions {
  /** Append "(i/N)" on its own line to every chunk when there is more than one (default true). */
  markers?: boolean;
}

interface Piece {
  /** Fence re-opened at the top of the chunk, with its line break; "" when none. */
  reopen: string;
  body: string;
  /** Line break and fence closing a block the chunk ends inside of; "" when none. */
  close: string;
  end: number;
}

// Room a glued chunk must leave for its own text; below it, fence glue is dropped to keep within the limit.
const MIN_GLUED_BODY = 2;

export function chunkMarker(index: number, count: number): string {
  return `\n(${index}/${count})`;
}

/** Longest marker for a chunk count with `digits` digits: "\n(" + i + "/" + N + ")". */
function markerRoom(digits: number): number {
  return 4 + 2 * digits;
}

/**
 * Splits an agent reply into messages of at most `limit` UTF-16 code units, cutting at the best available boundary
 * (paragraph, line, sentence, space, then anywhere between graphemes). A fenced code block cut across chunks is closed
 * at the end of one and reopened, with its language, at the start of the next. With more than one chunk each ends
 * with an "(i/N)" line; markers and fence glue count toward the limit. Line endings become "\n" once splitting is
 * needed.
 */
export function chunkMarkdown(text: string, limit: number, options: ChunkMarkdownOptions = {}): string[] {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`chunk limit must be a positive integer, got ${limit}`);
  if (!/\S/.test(text)) return [];
  if (text.length <= limit) return [text];

  const cutter = new MarkdownCutter(text.replace(/\r\n/g, "\n"));
  const unmarked = layoutPieces(cutter, limit);
  if (unmarked.length <= 1 || options.markers === false) return unmarked.map(render);

  // The marker's width depends on the chunk count, which depends on the room the marker leaves: grow until stable.
  for (let digits = String(unmarked.length).length; limit - markerRoom(digits) >= MIN_GLUED_BODY; ) {
    const pieces = layoutPieces(cutter, limit - markerRoom(digits));
    if (pieces.length <= 1) return pieces.map(render);
    const needed = String(pieces.length).length;
    if (needed <= digits) return pieces.map((piece, index) => render(piece) + chunkMarker(index + 1, pieces.length));
    digits = needed;
  }
  // A limit too small for any marker: better unmarked chunks than broken limits.
  return unmarked.map(render);
}

function render(piece: Piece): string {
  return piece.reopen + piece.body + piece.close;
}

function layoutPieces(cutter: MarkdownCutter, room: number): Piece[] {
  const pieces: Piece[] = [];
  let start = cutter.firstStart();
  while (start < cutter.contentEnd) {
    const piece = nextPiece(cutter, start, room);
    if (piece.body !== "") pieces.push(piece);
    start = cutter.nextStart(piece.end);
  }
  return pieces;
}

function nextPiece(cutter: MarkdownCutter, start: number, room: number): Piece {
  const bareOpening = openingTooWide(cutter, start, room);
  if (bareOpening) return bareOpening;
  const fence = cutter.fenceAt(start);
  // The language is worth repeating only while the glue leaves most of the room to the text.
  const reopenings = fence
    ? [
        { reopen: reopening(fence, true), minBody: Math.max(MIN_GLUED_BODY, Math.ceil(room / 2)) },
        { reopen: reopening(fence, false), minBody: MIN_GLUED_BODY },
      ]
    : [{ reopen: "", minBody: MIN_GLUED_BODY }];
  for (const { reopen, minBody } of reopenings) {
    const closed = closedCut(cutter, start, room - reopen.length, minBody);
    if (closed) return { reopen, ...closed };
  }
  const end = cutter.chooseEnd(start, room);
  return { reopen: "", body: cutter.body(start, end), close: "", end };
}

/** An opening fence line wider than the room is replaced by its bare marker rather than cut in two. */
function openingTooWide(cutter: MarkdownCutter, start: number, room: number): Piece | null {
  const line = cutter.lineStartingAt(start);
  if (line?.kind !== "open" || !line.fenceAfter || line.end >= cutter.contentEnd) return null;
  const closing = fenceClosingLine(line.fenceAfter).length + 1;
  if (line.end - line.start + 1 + MIN_GLUED_BODY + closing <= room) return null;
  const reopen = reopening(line.fenceAfter, false);
  const closed = closedCut(cutter, line.end + 1, room - reopen.length, MIN_GLUED_BODY);
  return closed ? { reopen, ...closed } : null;
}

function reopening(fence: Fence, withInfo: boolean): string {
  return fenceOpeningLine(fence, withInfo) + "\n";
}

/** A cut whose text plus the fence closing it (when it ends inside a code block) fits `room`; null when none does. */
function closedCut(cutter: MarkdownCutter, start: number, room: number, minBody: number): Omit<Piece, "reopen"> | null {
  let closingRoom = 0;
  for (;;) {
    const textRoom = room - closingRoom;
    if (textRoom < minBody) return null;
    const end = cutter.chooseEnd(start, textRoom);
    // Half a fence line is neither a block nor text; better no glue at all (the caller's last resort).
    if (cutter.cutsFenceLine(end)) return null;
    const open = cutter.fenceAt(end);
    const close = open ? "\n" + fenceClosingLine(open) : "";
    const body = cutter.body(start, end);
    if (body.length + close.length <= room) return { body, close: body === "" ? "" : close, end };
    closingRoom = Math.max(closingRoom + 1, close.length);
  }
}
