import { removeInvisibleCharacters } from "../prompt/injection-scan.js";

/**
 * On-disk format of MEMORY.md and USER.md:
 *
 *   § first entry
 *   § second entry, whose text may go on
 *   over further lines until the next line that starts with §
 *
 * - An entry starts at a line whose first character is "§"; one space after the marker is part of the marker.
 * - Following lines up to the next "§" line belong to the entry; surrounding blank lines are not kept.
 * - Text before the first "§" line (a hand-written note or heading) is read as one more entry, so it stays
 *   visible and editable; the next write gives it a marker.
 * - A line of an entry that itself starts with "§" is written with one leading space so it stays inside it;
 *   reading removes that space again.
 * - CRLF files are read as LF; files are written with LF and a final newline (empty file when no entries).
 * - The size counted against a file's limit is the rendered text without the final newline, in characters
 *   (Unicode code points).
 */
export const ENTRY_MARKER = "§";

export function parseEntries(fileText: string): string[] {
  const entries: string[] = [];
  let current: string[] | undefined;
  const close = (): void => {
    const text = current?.join("\n").trim();
    if (text) entries.push(text);
  };
  for (const line of fileText.replace(/\r\n?/g, "\n").split("\n")) {
    if (line.startsWith(ENTRY_MARKER)) {
      close();
      current = [line.slice(ENTRY_MARKER.length).replace(/^ /, "")];
    } else {
      (current ??= []).push(line.startsWith(` ${ENTRY_MARKER}`) ? line.slice(1) : line);
    }
  }
  close();
  return entries;
}

export function renderEntries(entries: readonly string[]): string {
  return entries
    .map((entry) => {
      const [first = "", ...rest] = entry.split("\n");
      const lines = rest.map((line) => (line.startsWith(ENTRY_MARKER) ? ` ${line}` : line));
      return [`${ENTRY_MARKER} ${first}`, ...lines].join("\n");
    })
    .join("\n");
}

export function fileTextOf(entries: readonly string[]): string {
  return entries.length === 0 ? "" : `${renderEntries(entries)}\n`;
}

export function charCount(text: string): number {
  return [...text].length;
}

/** The size of a file holding these entries, as counted against its limit. */
export function renderedSize(entries: readonly string[]): number {
  return charCount(renderEntries(entries));
}

/**
 * Content as the model sent it, made into one entry: invisible characters removed (they can hide text from the
 * person reading the file and split phrases the injection scan looks for), trimmed, CRLF folded, a leading "§"
 * marker dropped.
 */
export function cleanEntry(content: string): string {
  let text = removeInvisibleCharacters(content).replace(/\r\n?/g, "\n").trim();
  if (text.startsWith(ENTRY_MARKER)) text = text.slice(ENTRY_MARKER.length).trim();
  return text;
}

/** The form compared for duplicates: compatibility-folded, lower-case, whitespace runs collapsed. */
export function normalizeEntry(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}

/**
 * Indexes of the entries `needle` identifies: entries containing it exactly, or failing that, entries whose
 * normalised form contains its normalised form (the model often changes case or wrapping when quoting).
 */
export function matchingEntries(entries: readonly string[], needle: string): number[] {
  const exact = indexesWhere(entries, (entry) => entry.includes(needle));
  if (exact.length > 0) return exact;
  const normalized = normalizeEntry(needle);
  if (normalized === "") return [];
  return indexesWhere(entries, (entry) => normalizeEntry(entry).includes(normalized));
}

function indexesWhere(entries: readonly string[], predicate: (entry: string) => boolean): number[] {
  const found: number[] = [];
  entries.forEach((entry, index) => {
    if (predicate(entry)) found.push(index);
  });
  return found;
}
