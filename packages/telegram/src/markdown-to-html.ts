import { Lexer, type MarkedToken, type Token, type Tokens } from "marked";
import { escapeHtml } from "./html-escape.js";
import { tableText } from "@hermes/gateway";
import { inlineHtml } from "./telegram-inline.js";
import { TELEGRAM_TEXT_LIMIT } from "./text-limit.js";

const LANGUAGE = /^[A-Za-z0-9_+#.-]{1,32}$/;
const HORIZONTAL_RULE_WIDTH = 10;

interface BlockContext {
  /** Telegram refuses a blockquote inside another, so a nested quote's blocks are marked with "> " instead. */
  inQuote: boolean;
  listDepth: number;
  /** Tables as the Markdown wrote them rather than padded into columns. */
  tablesAsWritten: boolean;
}

/**
 * Converts the agent's Markdown (parsed by marked, GitHub-flavoured) to the HTML subset of Telegram's
 * `parse_mode: "HTML"`: emphasis, code, links and quotes become tags; headings are bold, lists "•"/"1." lines indented
 * by depth, tables aligned monospace blocks, and every text node (raw HTML included) is escaped. The gateway cuts
 * chunks by the Markdown's length, so a chunk that fits Telegram's limit must still fit once rendered: padded tables
 * that would break it are shown as written, and everything else is never longer than its Markdown (but for a list
 * numbered "1." throughout past its ninth item, a character per item, at worst costing the plain-text resend).
 */
export function markdownToTelegramHtml(markdown: string): string {
  const tokens = Lexer.lex(markdown.replace(/\r\n?/g, "\n"), { gfm: true, breaks: false });
  const html = blocksHtml(tokens, { inQuote: false, listDepth: 0, tablesAsWritten: false });
  if (visibleLength(html) <= Math.max(markdown.length, TELEGRAM_TEXT_LIMIT)) return html;
  return blocksHtml(tokens, { inQuote: false, listDepth: 0, tablesAsWritten: true });
}

/** Our own output has `<` only in tags and `&` only in entities, so this is what Telegram counts. */
function visibleLength(html: string): number {
  return html.replace(/<[^>]*>/g, "").replace(/&(?:lt|gt|amp|quot);/g, "&").length;
}

/** Blocks one per line; a blank line in the Markdown stays a blank line. `mark` starts each block. */
function blocksHtml(tokens: readonly Token[], context: BlockContext, mark = ""): string {
  let html = "";
  let blankLine = false;
  for (const token of tokens) {
    if (token.type === "space") {
      blankLine = html !== "";
      continue;
    }
    if (token.type === "checkbox") continue;
    const block = mark + blockHtml(token as MarkedToken, context);
    html += html === "" ? block : (blankLine ? "\n\n" : "\n") + block;
    blankLine = false;
  }
  return html;
}

function blockHtml(token: MarkedToken, context: BlockContext): string {
  switch (token.type) {
    case "paragraph":
      return inlineHtml(token.tokens);
    case "text":
      return token.tokens ? inlineHtml(token.tokens) : escapeHtml(token.text);
    case "heading":
      return `<b>${inlineHtml(token.tokens)}</b>`;
    case "code":
      return codeBlock(token.lang ?? "", token.text);
    case "blockquote":
      return quoteHtml(token, context);
    case "list":
      return listHtml(token, context);
    case "table":
      return `<pre>${escapeHtml(context.tablesAsWritten ? token.raw.trim() : tableText(token))}</pre>`;
    case "hr":
      // As wide as the rule was written, up to a short line: never longer than the Markdown.
      return "─".repeat(Math.min(HORIZONTAL_RULE_WIDTH, token.raw.trim().length));
    case "html":
      return escapeHtml(token.text.trimEnd());
    case "def":
      // A reference definition renders as nothing in Markdown, but in chat its line is often the answer's list of sources.
      return escapeHtml(token.raw.trim());
    default:
      return escapeHtml(token.raw.trimEnd());
  }
}

function codeBlock(info: string, body: string): string {
  const language = info.trim().split(/\s/, 1)[0] ?? "";
  const code = escapeHtml(body);
  return LANGUAGE.test(language) ? `<pre><code class="language-${language}">${code}</code></pre>` : `<pre>${code}</pre>`;
}

function quoteHtml(quote: Tokens.Blockquote, context: BlockContext): string {
  if (!context.inQuote) return `<blockquote>${blocksHtml(quote.tokens, { ...context, inQuote: true })}</blockquote>`;
  // Only where each block starts: lines the Markdown continued lazily (without ">") must not grow.
  return blocksHtml(quote.tokens, context, "&gt; ");
}

function listHtml(list: Tokens.List, context: BlockContext): string {
  const indent = "  ".repeat(context.listDepth);
  const start = typeof list.start === "number" ? list.start : 1;
  const nested = { ...context, listDepth: context.listDepth + 1 };
  return list.items
    .map((item, index) => {
      const marker = list.ordered ? `${start + index}. ` : "• ";
      const box = item.task ? (item.checked === true ? "☑ " : "☐ ") : "";
      // An empty item keeps no trailing space: "*" alone must not grow into "• ".
      return (indent + marker + box + blocksHtml(item.tokens, nested).replace(/^ +/, "")).trimEnd();
    })
    .join("\n");
}
