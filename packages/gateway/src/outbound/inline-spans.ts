/**
 * Stretches of a markdown line that read wrong when cut in two — inline code spans and links — so the chunker avoids
 * split points inside them while it has a choice.
 */

export interface Span {
  start: number;
  end: number;
}

const BACKTICK_RUN = /`+/g;
// [text](destination "title") and ![alt](src); brackets inside the text are not supported, which only costs a worse cut.
const INLINE_LINK = /!?\[[^\]\n]*\]\([^)\n]*\)/g;
const AUTOLINK = /<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>/g;

/** Inline code spans: a run of n backticks up to the next run of exactly n backticks on the same line. */
function codeSpans(line: string): Span[] {
  const runs = [...line.matchAll(BACKTICK_RUN)].map((match) => ({ start: match.index, length: match[0].length }));
  const runsByLength = new Map<number, number[]>();
  runs.forEach((run, at) => {
    const list = runsByLength.get(run.length);
    if (list) list.push(at);
    else runsByLength.set(run.length, [at]);
  });
  // Runs are visited in order, so each length's list is consumed front to back.
  const cursors = new Map<number, number>();
  const nextRunOfLength = (length: number, after: number): number | undefined => {
    const list = runsByLength.get(length) ?? [];
    let cursor = cursors.get(length) ?? 0;
    while (cursor < list.length && (list[cursor] ?? Infinity) <= after) cursor += 1;
    cursors.set(length, cursor);
    return list[cursor];
  };
  const spans: Span[] = [];
  let index = 0;
  while (index < runs.length) {
    const opener = runs[index];
    if (!opener) break;
    const closerIndex = nextRunOfLength(opener.length, index);
    const closer = closerIndex === undefined ? undefined : runs[closerIndex];
    if (closerIndex === undefined || !closer) {
      index += 1;
      continue;
    }
    spans.push({ start: opener.start, end: closer.start + closer.length });
    index = closerIndex + 1;
  }
  return spans;
}

function matches(line: string, pattern: RegExp): Span[] {
  return [...line.matchAll(pattern)].map((match) => ({ start: match.index, end: match.index + match[0].length }));
}

/** Protected spans of one line, as offsets into that line, sorted by start. */
export function protectedSpans(line: string): Span[] {
  const code = codeSpans(line);
  const inCode = new Uint8Array(line.length + 1);
  for (const span of code) inCode.fill(1, span.start, span.end);
  const insideCode = (span: Span): boolean => inCode[span.start] === 1;
  // Link syntax inside a code span is literal text, not a link.
  const links = [...matches(line, INLINE_LINK), ...matches(line, AUTOLINK)].filter((span) => !insideCode(span));
  return [...code, ...links].sort((a, b) => a.start - b.start);
}

/** Marks, for every offset of the line, whether cutting there would land strictly inside a protected span. */
export function protectedOffsets(line: string): Uint8Array {
  const mask = new Uint8Array(line.length + 1);
  for (const span of protectedSpans(line)) mask.fill(1, span.start + 1, span.end);
  return mask;
}
