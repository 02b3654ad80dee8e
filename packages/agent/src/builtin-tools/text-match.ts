/** Start offsets of the non-overlapping occurrences of `needle`, in order. */
export function findMatches(haystack: string, needle: string): number[] {
  const offsets: number[] = [];
  if (needle.length === 0) return offsets;
  let from = 0;
  for (;;) {
    const found = haystack.indexOf(needle, from);
    if (found === -1) return offsets;
    offsets.push(found);
    from = found + needle.length;
  }
}

/**
 * Offset in `haystack` where `needle` occurs once all whitespace is ignored, or undefined.
 * Used only to explain a failed exact match, never to apply one.
 */
export function findWhitespaceInsensitiveMatch(haystack: string, needle: string): number | undefined {
  const compactNeedle = needle.replace(/\s+/g, "");
  if (compactNeedle.length === 0) return undefined;
  const found = haystack.replace(/\s+/g, "").indexOf(compactNeedle);
  if (found === -1) return undefined;
  // Map the offset in the compacted text back by counting the non-whitespace characters before it.
  let remaining = found;
  for (let index = 0; index < haystack.length; index += 1) {
    if (/\s/.test(haystack.charAt(index))) continue;
    if (remaining === 0) return index;
    remaining -= 1;
  }
  return undefined;
}

/** 1-based line number of a character offset. */
export function lineNumberAt(text: string, offset: number): number {
  let line = 1;
  let index = text.indexOf("\n");
  while (index !== -1 && index < offset) {
    line += 1;
    index = text.indexOf("\n", index + 1);
  }
  return line;
}
