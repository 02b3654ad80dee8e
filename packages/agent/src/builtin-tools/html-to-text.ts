import { decodeEntities } from "./html-entities.js";

export interface HtmlToTextOptions {
  /** Base for resolving relative link targets; links stay as written when absent. */
  baseUrl?: string;
}

// Elements whose content is never readable body text; skipped with everything inside. The title is read separately.
const SKIPPED_ELEMENTS = new Set(["script", "style", "noscript", "svg", "template", "title"]);

const PARAGRAPH_ELEMENTS = new Set([
  "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "table", "blockquote", "pre", "section", "article",
  "header", "footer", "nav", "main", "aside", "figure", "form", "fieldset", "address", "details", "hr",
]);

const LINE_ELEMENTS = new Set(["div", "li", "tr", "dt", "dd", "figcaption", "summary", "caption", "option", "legend"]);

const CELL_ELEMENTS = new Set(["td", "th"]);

const TOKEN_PATTERN =
  /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[[\s\S]*?(?:\]\]>|$)|<[!?][^>]*>|<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;

/** Readable plain text from an HTML document: title first, block structure as line breaks, links as `text (url)`. */
export function htmlToText(html: string, options: HtmlToTextOptions = {}): string {
  const title = extractTitle(html);
  const body = new TextBuilder();
  let link: { start: number; href: string | undefined } | undefined;
  let preDepth = 0;
  let cursor = 0;

  TOKEN_PATTERN.lastIndex = 0;
  for (let match = TOKEN_PATTERN.exec(html); match !== null; match = TOKEN_PATTERN.exec(html)) {
    body.text(decodeEntities(html.slice(cursor, match.index)), preDepth > 0);
    cursor = TOKEN_PATTERN.lastIndex;

    const tagName = match[2]?.toLowerCase();
    if (tagName === undefined) continue; // comment, doctype, processing instruction
    const isClosing = match[1] === "/";
    const attributes = match[3] ?? "";

    if (!isClosing && SKIPPED_ELEMENTS.has(tagName) && !attributes.trimEnd().endsWith("/")) {
      cursor = indexAfterClosingTag(html, tagName, cursor);
      TOKEN_PATTERN.lastIndex = cursor;
      continue;
    }

    if (tagName === "a") {
      if (link !== undefined) body.finishLink(link.start, link.href);
      link = isClosing ? undefined : { start: body.mark(), href: resolveHref(readAttribute(attributes, "href"), options) };
    } else if (tagName === "br") {
      body.forcedLineBreak();
    } else if (tagName === "pre") {
      preDepth = Math.max(0, preDepth + (isClosing ? -1 : 1));
      body.paragraphBreak();
    } else if (PARAGRAPH_ELEMENTS.has(tagName)) {
      body.paragraphBreak();
    } else if (LINE_ELEMENTS.has(tagName)) {
      body.lineBreak();
      if (tagName === "li" && !isClosing) body.text("- ", false);
    } else if (CELL_ELEMENTS.has(tagName) && !isClosing) {
      body.text(" ", false);
    }
  }
  body.text(decodeEntities(html.slice(cursor)), preDepth > 0);
  if (link !== undefined) body.finishLink(link.start, link.href);

  const text = body.finish();
  if (title === "") return text;
  return text === "" ? title : `${title}\n\n${text}`;
}

function extractTitle(html: string): string {
  const match = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  return match?.[1] === undefined ? "" : collapseWhitespace(decodeEntities(match[1].replace(/<[^>]*>/g, "")));
}

function indexAfterClosingTag(html: string, tagName: string, from: number): number {
  const closing = new RegExp(`</${tagName}\\s*>`, "ig");
  closing.lastIndex = from;
  const match = closing.exec(html);
  return match === null ? html.length : closing.lastIndex;
}

function readAttribute(attributes: string, name: string): string | undefined {
  const pattern = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, "i");
  const match = pattern.exec(attributes);
  if (match === null) return undefined;
  return decodeEntities(match[1] ?? match[2] ?? match[3] ?? "");
}

// Targets that lead nowhere useful outside the page (fragments, scripts) are dropped; the link text remains.
function resolveHref(href: string | undefined, options: HtmlToTextOptions): string | undefined {
  const trimmed = href?.trim();
  if (trimmed === undefined || trimmed === "" || trimmed.startsWith("#")) return undefined;
  let resolved: URL;
  try {
    resolved = new URL(trimmed, options.baseUrl);
  } catch {
    return options.baseUrl === undefined ? trimmed : undefined;
  }
  return ["http:", "https:", "mailto:"].includes(resolved.protocol) ? resolved.href : undefined;
}

function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Accumulates output while keeping whitespace tidy: no leading spaces on lines, no doubled spaces. */
class TextBuilder {
  private readonly parts: string[] = [];

  private lastChar(): string {
    for (let index = this.parts.length - 1; index >= 0; index--) {
      const part = this.parts[index] ?? "";
      if (part !== "") return part[part.length - 1] ?? "";
    }
    return "";
  }

  text(raw: string, preserveWhitespace: boolean): void {
    if (raw === "") return;
    if (preserveWhitespace) {
      this.parts.push(raw);
      return;
    }
    let text = raw.replace(/\s+/g, " ");
    const last = this.lastChar();
    if ((last === "" || last === "\n" || last === " ") && text.startsWith(" ")) text = text.slice(1);
    this.parts.push(text);
  }

  lineBreak(): void {
    const last = this.lastChar();
    if (last !== "" && last !== "\n") this.parts.push("\n");
  }

  forcedLineBreak(): void {
    this.parts.push("\n");
  }

  paragraphBreak(): void {
    this.lineBreak();
    if (this.lastChar() !== "") this.parts.push("\n");
  }

  mark(): number {
    return this.parts.length;
  }

  finishLink(start: number, href: string | undefined): void {
    const label = collapseWhitespace(this.parts.splice(start).join(""));
    // A link without words (an icon, an image) would only add a bare URL to the noise, so it is left out.
    if (href === undefined || label === href || label === "") this.text(label, false);
    else this.text(`${label} (${href})`, false);
  }

  finish(): string {
    return this.parts
      .join("")
      .split("\n")
      .map((line) => line.trimEnd())
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .replace(/^\n+|\n+$/g, "");
  }
}
