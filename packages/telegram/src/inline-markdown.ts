import { escapeAttribute, escapeHtml } from "./html-escape.js";

// Telegram refuses links with schemes it does not open; anything else stays visible as text.
const LINK_SCHEMES = /^(https?:\/\/|tg:\/\/|mailto:)/i;
const LINK = /^\[([^[\]\n]+)\]\(<?([^()\s<>]+)>?\)/;
const AUTOLINK = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/;
const ESCAPABLE = /[!-/:-@[-`{-~]/;
const DOUBLE_DELIMITERS: ReadonlyArray<{ marker: string; tag: string }> = [
  { marker: "**", tag: "b" },
  { marker: "__", tag: "b" },
  { marker: "~~", tag: "s" },
];

/**
 * Converts one line (or a few joined lines) of inline Markdown to Telegram HTML: bold, italic, strikethrough, code
 * spans and links become tags, everything else is escaped text. Markers without a partner stay as literal text, so
 * the result is always well-formed whatever the input.
 */
export function inlineMarkdownToHtml(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i] ?? "";
    if (ch === "\\" && ESCAPABLE.test(text[i + 1] ?? "")) {
      out += escapeHtml(text[i + 1] ?? "");
      i += 2;
      continue;
    }
    if (ch === "`") {
      const span = codeSpan(text, i);
      out += span.html;
      i = span.end;
      continue;
    }
    if (ch === "[" || ch === "<") {
      const link = linkAt(text, i);
      if (link) {
        out += link.html;
        i = link.end;
        continue;
      }
    }
    const emphasis = emphasisAt(text, i);
    if (emphasis) {
      out += emphasis.html;
      i = emphasis.end;
      continue;
    }
    out += escapeHtml(ch);
    i += 1;
  }
  return out;
}

interface Span {
  html: string;
  end: number;
}

function codeSpan(text: string, start: number): Span {
  let run = 0;
  while (text[start + run] === "`") run += 1;
  const fence = "`".repeat(run);
  let close = text.indexOf(fence, start + run);
  // A longer run of backticks does not close a shorter one.
  while (close !== -1 && text[close + run] === "`") {
    let skip = close;
    while (text[skip] === "`") skip += 1;
    close = text.indexOf(fence, skip);
  }
  if (close === -1) return { html: escapeHtml(fence), end: start + run };
  let content = text.slice(start + run, close);
  if (content.length > 2 && content.startsWith(" ") && content.endsWith(" ")) content = content.slice(1, -1);
  return { html: `<code>${escapeHtml(content)}</code>`, end: close + run };
}

function linkAt(text: string, start: number): Span | undefined {
  const rest = text.slice(start);
  const auto = AUTOLINK.exec(rest);
  if (auto) {
    const url = auto[1] ?? "";
    return { html: `<a href="${escapeAttribute(url)}">${escapeHtml(url)}</a>`, end: start + auto[0].length };
  }
  const link = LINK.exec(rest);
  if (!link) return undefined;
  const label = link[1] ?? "";
  const url = link[2] ?? "";
  if (!LINK_SCHEMES.test(url)) return { html: `${inlineMarkdownToHtml(label)} (${escapeHtml(url)})`, end: start + link[0].length };
  return { html: `<a href="${escapeAttribute(url)}">${inlineMarkdownToHtml(label)}</a>`, end: start + link[0].length };
}

function emphasisAt(text: string, start: number): Span | undefined {
  for (const { marker, tag } of DOUBLE_DELIMITERS) {
    if (!text.startsWith(marker, start) || !opens(text, start, marker)) continue;
    const close = findCloser(text, start + marker.length, marker);
    if (close === -1) continue;
    const inner = text.slice(start + marker.length, close);
    return { html: `<${tag}>${inlineMarkdownToHtml(inner)}</${tag}>`, end: close + marker.length };
  }
  const ch = text[start];
  if ((ch === "*" || ch === "_") && text[start + 1] !== ch && opens(text, start, ch)) {
    const close = findCloser(text, start + 1, ch);
    if (close !== -1) return { html: `<i>${inlineMarkdownToHtml(text.slice(start + 1, close))}</i>`, end: close + 1 };
  }
  return undefined;
}

/** An opener is followed by a non-space; `_` must also start a word, so snake_case stays as it is. */
function opens(text: string, at: number, marker: string): boolean {
  const next = text[at + marker.length];
  if (next === undefined || /\s/.test(next)) return false;
  return !marker.startsWith("_") || !isWordChar(text[at - 1]);
}

/** The first matching closer after `from` that follows a non-space, skipping doubled markers inside single ones. */
function findCloser(text: string, from: number, marker: string): number {
  for (let at = from; at < text.length; at += 1) {
    if (text[at] === "`") {
      at = codeSpan(text, at).end - 1;
      continue;
    }
    if (!text.startsWith(marker, at)) continue;
    const isDoubledSingle = marker.length === 1 && text[at + 1] === marker;
    if (isDoubledSingle) {
      at += 1;
      continue;
    }
    if (at === from || /\s/.test(text[at - 1] ?? "")) continue;
    // In "***" closing a bold that holds an italic, the bold's closer is the last two.
    let closer = at;
    while (marker.length > 1 && text[closer + marker.length] === marker[0]) closer += 1;
    if (marker.startsWith("_") && isWordChar(text[closer + marker.length])) continue;
    return closer;
  }
  return -1;
}

function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && /[\p{L}\p{N}]/u.test(ch);
}
