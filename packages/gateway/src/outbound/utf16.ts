/**
 * Cutting text by UTF-16 code units — the unit platforms count message limits in — without tearing a character
 * apart: never inside a surrogate pair, and where the text allows it never inside a grapheme (emoji with variation
 * selector or skin tone, ZWJ families, flags, letters with combining marks).
 */

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

// Graphemes longer than this are rare enough (ZWJ chains, Zalgo text) that cutting them beats scanning far back.
const LOOK_BEHIND = 64;
const LOOK_AHEAD = 16;

export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** `cut`, or one less when `cut` would separate the halves of a surrogate pair. */
export function codePointBoundary(text: string, cut: number): number {
  if (cut <= 0 || cut >= text.length) return cut;
  const splitsPair = isHighSurrogate(text.charCodeAt(cut - 1)) && isLowSurrogate(text.charCodeAt(cut));
  return splitsPair ? cut - 1 : cut;
}

/**
 * The largest index in (floor, cut] where text can be cut between two graphemes; failing that, between two code
 * points; failing that (a single astral character wider than the room), `cut` itself so the caller still advances.
 */
export function safeCutIndex(text: string, floor: number, cut: number): number {
  if (cut >= text.length) return text.length;
  if (cut <= floor) return cut;
  const from = Math.max(floor, cut - LOOK_BEHIND);
  const window = text.slice(from, Math.min(text.length, cut + LOOK_AHEAD));
  let best = -1;
  for (const { index } of graphemes.segment(window)) {
    // The window's own start is not a real boundary when it begins inside a long grapheme.
    if (index === 0) continue;
    const at = from + index;
    if (at > cut) break;
    best = at;
  }
  if (best > floor) return best;
  const point = codePointBoundary(text, cut);
  return point > floor ? point : cut;
}
