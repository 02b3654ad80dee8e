import type { Token, Tokens } from "marked";

/** The words of inline tokens without their markup: what a table cell or a link label reads as. */
export function inlinePlainText(tokens: readonly Token[]): string {
  return tokens.map(tokenPlainText).join("");
}

function tokenPlainText(token: Token): string {
  if (token.type === "br") return " ";
  if (token.type === "checkbox") return "";
  const fields = token as unknown as Record<string, unknown>;
  const nested = fields["tokens"];
  if (Array.isArray(nested) && nested.length > 0) return inlinePlainText(nested as Token[]);
  const text = fields["text"];
  return typeof text === "string" ? text : token.raw;
}

/** Lays a table out as monospace text with aligned columns (for a code block: chat platforms have no tables). */
export function tableText(table: Tokens.Table): string {
  const rows = [table.header, ...table.rows].map((cells) => cells.map((cell) => inlinePlainText(cell.tokens).trim()));
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
