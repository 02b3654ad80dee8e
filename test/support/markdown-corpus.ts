import { readFileSync } from "node:fs";
import { Lexer, type Token } from "marked";

const CORPUS = new URL("../fixtures/model-answers.md", import.meta.url);

/** The realistic model answers of test/fixtures/model-answers.md, one per "%%%%"-separated section. */
export function modelAnswers(): string[] {
  return readFileSync(CORPUS, "utf8")
    .split(/^%%%%$/m)
    .map((answer) => answer.trim())
    .filter((answer) => answer !== "");
}

/** Every word marked reads in the Markdown (text, code, raw HTML, link and image labels, table cells) in order. */
export function markedPlainText(markdown: string): string {
  return Lexer.lex(markdown.replace(/\r\n?/g, "\n"), { gfm: true, breaks: false }).map(tokenText).join("\n");
}

function tokenText(token: Token): string {
  const fields = token as unknown as Record<string, unknown>;
  if (token.type === "list") return (fields["items"] as Token[]).map(tokenText).join("\n");
  if (token.type === "table") {
    const rows = [fields["header"] as Array<{ tokens: Token[] }>, ...(fields["rows"] as Array<Array<{ tokens: Token[] }>>)];
    return rows.map((cells) => cells.map((cell) => cell.tokens.map(tokenText).join("")).join(" ")).join("\n");
  }
  // A reference definition shows as its line in chat (it is often the answer's list of sources).
  if (token.type === "def") return token.raw;
  if (token.type === "space" || token.type === "hr" || token.type === "br" || token.type === "checkbox") return "";
  const nested = fields["tokens"];
  if (Array.isArray(nested) && nested.length > 0) return (nested as Token[]).map(tokenText).join("");
  const text = fields["text"];
  return typeof text === "string" ? text : "";
}

/** Whether every non-space character of `expected` appears in `actual` in the same order (markup may come between). */
export function keepsAllCharacters(actual: string, expected: string): { ok: true } | { ok: false; missing: string; at: number } {
  const wanted = [...expected.replace(/\s+/g, "")];
  const have = [...actual.replace(/\s+/g, "")];
  let at = 0;
  for (const [index, char] of wanted.entries()) {
    while (at < have.length && have[at] !== char) at += 1;
    if (at === have.length) return { ok: false, missing: wanted.slice(index, index + 20).join(""), at: index };
    at += 1;
  }
  return { ok: true };
}

/** A seeded linear congruential generator: the same documents on every run, without a property-testing library. */
export function seededRandom(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % below;
  };
}

/** Random documents made of lines of the corpus answers, shuffled and mixed, so constructs meet in new ways. */
export function mixedAnswers(count: number, seed: number): string[] {
  const lines = modelAnswers().flatMap((answer) => answer.split("\n"));
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => Array.from({ length: 1 + next(12) }, () => lines[next(lines.length)] ?? "").join("\n"));
}

const MARKUP_SOUP = ["*", "**", "_", "__", "`", "```", "~~", "[", "](", "https://e.x/a_(b)", ")", "<", ">", "&", "\\", "#", " ", "\n", "> ", "- ", "1. ", "|", "|-|", "@here", "<!channel>", "<b>", "a", "é", "😀"];

/** Random strings of Markdown's special characters and fragments: the inputs no model writes on purpose. */
export function markupSoup(count: number, seed: number): string[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => Array.from({ length: next(40) }, () => MARKUP_SOUP[next(MARKUP_SOUP.length)] ?? "").join(""));
}
