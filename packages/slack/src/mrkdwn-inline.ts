import type { MarkedToken, Token } from "marked";
import { escapeSlackText, plainSlackText } from "./mrkdwn-escape.js";
import { inlinePlainText } from "@hermes/gateway";

// Only web and mail links become Slack links; anything else (javascript:, data:, relative paths) stays visible text.
const LINK_SCHEMES = /^(?:https?:\/\/|mailto:)/i;

export interface InlineStyle {
  /** Inside a bold line (a heading), where a second `*` pair would end the bold early. */
  bold: boolean;
}

/** Inline tokens as Slack mrkdwn; every text (raw HTML too) is escaped so none of it acts as Slack syntax. */
export function inlineMrkdwn(tokens: readonly Token[], style: InlineStyle = { bold: false }): string {
  return tokens.map((token) => tokenMrkdwn(token as MarkedToken, style)).join("");
}

function tokenMrkdwn(token: MarkedToken, style: InlineStyle): string {
  switch (token.type) {
    case "strong":
      return style.bold ? inlineMrkdwn(token.tokens, style) : `*${inlineMrkdwn(token.tokens, { bold: true })}*`;
    case "em":
      return `_${inlineMrkdwn(token.tokens, style)}_`;
    case "del":
      return `~${inlineMrkdwn(token.tokens, style)}~`;
    case "codespan":
      return "`" + plainSlackText(token.text) + "`";
    case "br":
      return "\n";
    case "link":
      // A bare URL as written is linked by Slack itself; `<url>` keeps its angle-bracket form.
      if (token.raw === token.text && token.text !== "") return plainSlackText(token.text);
      return link(token.href, inlinePlainText(token.tokens));
    case "image":
      return link(token.href, token.text);
    case "text":
      return token.tokens ? inlineMrkdwn(token.tokens, style) : plainSlackText(token.text);
    case "checkbox":
      return "";
    case "escape":
    case "html":
      return plainSlackText(token.text);
    default:
      return plainSlackText(token.raw);
  }
}

function link(href: string, label: string): string {
  const words = label.trim() === href ? "" : label.trim();
  if (!LINK_SCHEMES.test(href)) return plainSlackText(words ? `${words} (${href})` : href);
  const text = plainSlackText(words).replace(/\|/g, "¦");
  return text ? `<${safeUrl(href)}|${text}>` : `<${safeUrl(href)}>`;
}

function safeUrl(url: string): string {
  return escapeSlackText(url).replace(/\|/g, "%7C");
}
