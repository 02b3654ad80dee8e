import type { MarkedToken, Token } from "marked";
import { escapeAttribute, escapeHtml } from "./html-escape.js";
import { inlinePlainText } from "@hermes/gateway";

// Telegram refuses links with schemes it does not open; anything else stays visible as text.
const LINK_SCHEMES = /^(https?:\/\/|tg:\/\/|mailto:)/i;

/** Inline tokens as Telegram HTML: emphasis, code and links become tags; every text (raw HTML too) is escaped. */
export function inlineHtml(tokens: readonly Token[]): string {
  return tokens.map((token) => tokenHtml(token as MarkedToken)).join("");
}

function tokenHtml(token: MarkedToken): string {
  switch (token.type) {
    case "strong":
      return `<b>${inlineHtml(token.tokens)}</b>`;
    case "em":
      return `<i>${inlineHtml(token.tokens)}</i>`;
    case "del":
      return `<s>${inlineHtml(token.tokens)}</s>`;
    case "codespan":
      return `<code>${escapeHtml(token.text)}</code>`;
    case "br":
      return "\n";
    case "link":
      return linkHtml(token.href, inlineHtml(token.tokens), inlinePlainText(token.tokens));
    case "image":
      // Telegram cannot show an image inside text; its description links to it.
      return linkHtml(token.href, escapeHtml(token.text), token.text);
    case "text":
      return token.tokens ? inlineHtml(token.tokens) : escapeHtml(token.text);
    case "checkbox":
      return "";
    case "escape":
    case "html":
      return escapeHtml(token.text);
    default:
      return escapeHtml(token.raw);
  }
}

function linkHtml(href: string, labelHtml: string, label: string): string {
  const shown = label.trim() === "" || label === href ? escapeHtml(href) : labelHtml;
  if (!LINK_SCHEMES.test(href)) return shown === labelHtml ? `${labelHtml} (${escapeHtml(href)})` : shown;
  return `<a href="${escapeAttribute(href)}">${shown}</a>`;
}
