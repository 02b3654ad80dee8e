import { escapeHtml } from "./html-escape.js";
import { inlineMarkdownToHtml } from "./inline-markdown.js";

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/;
const HEADING = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const BULLET = /^([ \t]*)[-*+][ \t]+(.*)$/;
const QUOTE = /^ {0,3}>[ ]?(.*)$/;
const LANGUAGE = /^[A-Za-z0-9_+#.-]{1,32}$/;

/**
 * Converts the agent's Markdown to the HTML subset of Telegram's `parse_mode: "HTML"`: fenced code blocks become
 * `<pre>` (with their language), headings bold, quotes `<blockquote>`, bullets "•", and inline markup tags; all other
 * text is escaped. The visible text is never longer than the Markdown, so a chunk that fits stays within the limit.
 */
export function markdownToTelegramHtml(markdown: string): string {
  const lines = markdown.replace(/\r\n/g, "\n").split("\n");
  const blocks: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    const fence = FENCE_OPEN.exec(line);
    if (fence) {
      const marker = fence[1] ?? "```";
      const body: string[] = [];
      i += 1;
      while (i < lines.length && !closesFence(lines[i] ?? "", marker)) body.push(lines[i++] ?? "");
      i += 1;
      blocks.push(codeBlock(fence[2] ?? "", body.join("\n")));
      continue;
    }
    if (QUOTE.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i] ?? "")) quoted.push(QUOTE.exec(lines[i++] ?? "")?.[1] ?? "");
      blocks.push(`<blockquote>${quoted.map(formatLine).join("\n")}</blockquote>`);
      continue;
    }
    blocks.push(formatLine(line));
    i += 1;
  }
  return blocks.join("\n");
}

function closesFence(line: string, opening: string): boolean {
  const trimmed = line.trim();
  const char = opening[0] ?? "`";
  return trimmed.length >= opening.length && [...trimmed].every((c) => c === char);
}

function codeBlock(language: string, body: string): string {
  const code = escapeHtml(body);
  return LANGUAGE.test(language) ? `<pre><code class="language-${language}">${code}</code></pre>` : `<pre>${code}</pre>`;
}

function formatLine(line: string): string {
  const heading = HEADING.exec(line);
  if (heading) return `<b>${inlineMarkdownToHtml(heading[1] ?? "")}</b>`;
  const bullet = BULLET.exec(line);
  if (bullet) return `${bullet[1] ?? ""}• ${inlineMarkdownToHtml(bullet[2] ?? "")}`;
  return inlineMarkdownToHtml(line);
}
