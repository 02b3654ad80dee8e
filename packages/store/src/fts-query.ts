/** More terms than this add noise, not precision, and keep hostile input from building huge expressions. */
const MAX_TERMS = 16;
const WORD_CHARACTER = /[\p{L}\p{N}]/u;

export type TermJoin = "all" | "any";

/**
 * Splits free text into FTS5 terms that cannot carry FTS5 syntax: each whitespace-separated word becomes a
 * double-quoted string (inner quotes doubled), so operators, column filters, NEAR groups and prefix stars typed by the
 * user are plain words. Words without a letter or digit would be empty phrases and are dropped.
 */
export function ftsTerms(text: string): string[] {
  const terms: string[] = [];
  // Control characters go first: FTS5 reads a NUL inside a string as its end.
  for (const word of text.normalize("NFC").replace(/\p{Cc}/gu, " ").split(/\s+/u)) {
    if (!WORD_CHARACTER.test(word)) continue;
    const quoted = `"${word.replaceAll('"', '""')}"`;
    if (!terms.includes(quoted)) terms.push(quoted);
    if (terms.length === MAX_TERMS) break;
  }
  return terms;
}

export function ftsMatchExpression(terms: readonly string[], join: TermJoin): string {
  return terms.join(join === "all" ? " AND " : " OR ");
}
