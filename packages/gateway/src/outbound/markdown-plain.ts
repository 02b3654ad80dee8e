import type { Token, Tokens } from "marked";

// Plain text of marked's tokens, shared by the Telegram and Slack renderers (both render from marked's lexer).

interface PlainTextOptions {
  /** A link's URL follows its words, where the text cannot carry a link (a table laid out as monospace). */
  withUrls?: boolean;
}

/** The words of inline tokens without their markup: what a table cell or a link label reads as. */
export function inlinePlainText(tokens: readonly Token[], options: PlainTextOptions = {}): string {
  return tokens.map((token) => tokenPlainText(token, options)).join("");
}

function tokenPlainText(token: Token, options: PlainTextOptions): string {
  if (token.type === "br") return " ";
  if (token.type === "checkbox") return "";
  if (options.withUrls && (token.type === "link" || token.type === "image")) return linkPlainText(token as Tokens.Link | Tokens.Image, options);
  const fields = token as unknown as Record<string, unknown>;
  const nested = fields["tokens"];
  if (Array.isArray(nested) && nested.length > 0) return inlinePlainText(nested as Token[], options);
  const text = fields["text"];
  return typeof text === "string" ? text : token.raw;
}

function linkPlainText(link: Tokens.Link | Tokens.Image, options: PlainTextOptions): string {
  const words = link.tokens && link.tokens.length > 0 ? inlinePlainText(link.tokens, options) : link.text;
  // A bare or <angle> URL already shows itself.
  if (link.raw === link.text || link.raw === `<${link.text}>`) return words;
  return words.trim() === "" || words === link.href ? link.href : `${words} (${link.href})`;
}

/** Lays a table out as monospace text with aligned columns (for a code block: chat platforms have no tables). */
export function tableText(table: Tokens.Table): string {
  const rows = [table.header, ...table.rows].map((cells) => cells.map((cell) => inlinePlainText(cell.tokens, { withUrls: true }).trim()));
  const widths = table.header.map((_, column) => Math.max(1, ...rows.map((cells) => width(cells[column] ?? ""))));
  const line = (cells: readonly string[]): string =>
    widths.map((columnWidth, column) => pad(cells[column] ?? "", columnWidth, table.align[column] ?? null)).join(" | ").trimEnd();
  const [header = [], ...body] = rows;
  return [line(header), widths.map((columnWidth) => "-".repeat(columnWidth)).join("-+-"), ...body.map(line)].join("\n");
}

function width(text: string): number {
  return [...text].length;
}

function pad(text: string, columnWidth: number, align: "left" | "right" | "center" | null): string {
  const room = columnWidth - width(text);
  if (align === "right") return " ".repeat(room) + text;
  if (align === "center") return " ".repeat(Math.floor(room / 2)) + text + " ".repeat(Math.ceil(room / 2));
  return text + " ".repeat(room);
}
