import type { CopyResult } from "@hermes/store";

/** The per-table row counts of a finished copy. */
export function formatCopyReport(result: Extract<CopyResult, { ok: true }>): string {
  const header = ["table", "SQLite", "PostgreSQL"] as const;
  const rows = result.tables.map((count) => [count.table, String(count.sqliteRows), String(count.postgresRows)] as const);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: readonly [string, string, string]): string =>
    `  ${cells[0].padEnd(widths[0] ?? 0)}  ${cells[1].padStart(widths[1] ?? 0)}  ${cells[2].padStart(widths[2] ?? 0)}`.trimEnd();
  const total = result.tables.reduce((sum, count) => sum + count.postgresRows, 0);
  const lines = [`Copied and verified ${total} row(s): every table has as many rows in PostgreSQL as in SQLite.`, line(header), ...rows.map(line)];
  const withNul = result.tables.filter((count) => count.valuesWithNulRemoved > 0);
  if (withNul.length > 0) {
    const where = withNul.map((count) => `${count.table} ${count.valuesWithNulRemoved}`).join(", ");
    lines.push(`Text values with NUL characters, copied without them (PostgreSQL cannot store NUL): ${where}.`);
  }
  for (const count of result.tables.filter((each) => (each.fromFiles ?? 0) > 0)) {
    lines.push(`${count.table}: ${count.fromFiles} of its rows are the memory files (MEMORY.md, USER.md) of $HERMES_HOME/memory.`);
  }
  return `${lines.join("\n")}\n`;
}

export function formatNextStep(target: string): string {
  return `Next: set HERMES_DATABASE_URL=${target} (with its password) for the gateway, the workers and the CLI, then start them.\n`;
}
