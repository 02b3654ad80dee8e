/** More terms than this add noise, not precision, and keep hostile input from building huge expressions. */
const MAX_TERMS = 16;
const WORD_CHARACTER = /[\p{L}\p{N}]/u;

export type TermJoin = "all" | "any";

/**
 * Lucene's English stop words (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET). They stay in the query as filters but do not
 * rank: bm25 looks up how many messages of the whole index hold each ranked term, which for a word in most messages
 * means walking most of the index (tens of ms per million messages), and gives such a word next to no weight anyway.
 */
const STOP_WORDS: ReadonlySet<string> = new Set([
  "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of", "on",
  "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
]);

/**
 * The words of free text a search looks for, on either dialect: whitespace-separated, in NFC, without control
 * characters (FTS5 reads a NUL inside a string as its end, PostgreSQL refuses it), duplicates, or words without a
 * letter or digit (nothing to match), and at most MAX_TERMS of them. They are values, never query syntax.
 */
export function searchWords(text: string): string[] {
  const words: string[] = [];
  for (const word of text.normalize("NFC").replace(/\p{Cc}/gu, " ").split(/\s+/u)) {
    if (!WORD_CHARACTER.test(word) || words.includes(word)) continue;
    words.push(word);
    if (words.length === MAX_TERMS) break;
  }
  return words;
}

/** Whether a search word only filters and never ranks (see STOP_WORDS). */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}

/**
 * Splits free text into FTS5 terms that cannot carry FTS5 syntax: each word (searchWords) becomes a double-quoted
 * string (inner quotes doubled), so operators, column filters, NEAR groups and prefix stars typed by the user are plain
 * words.
 */
export function ftsTerms(text: string): string[] {
  return searchWords(text).map(ftsTerm);
}

/** One word as an FTS5 string: a phrase of its tokens, never syntax. */
export function ftsTerm(word: string): string {
  return `"${word.replaceAll('"', '""')}"`;
}

export function ftsMatchExpression(terms: readonly string[], join: TermJoin): string {
  return terms.join(join === "all" ? " AND " : " OR ");
}

/**
 * The token migration 0008 indexes in the `owner` column for a session of this platform and user: the hex of each
 * value's UTF-8 bytes (SQLite's hex()) around an `X`, one unicode61 token that no other (platform, user) pair shares.
 */
export function searchOwnerToken(platform: string, userId: string): string {
  const hex = (value: string): string => Buffer.from(value, "utf8").toString("hex").toUpperCase();
  return `${hex(platform)}X${hex(userId)}`;
}

/**
 * The terms in the message text, among one owner's rows only: FTS5 intersects the owner's doclist with the terms'
 * instead of yielding (and ranking) every user's matches.
 */
export function ownedMatchExpression(ownerToken: string, terms: readonly string[], join: TermJoin): string {
  return `owner : "${ownerToken}" AND text : (${ftsMatchExpression(terms, join)})`;
}

/** The terms that rank results (see STOP_WORDS); the others only filter. */
export function rankingTerms(terms: readonly string[]): string[] {
  return terms.filter((term) => !isStopWord(term.slice(1, -1)));
}
