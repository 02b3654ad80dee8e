import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Database } from "../database.js";
import type { CopiedTable } from "./copied-tables.js";
import type { SqliteValue } from "./sqlite-source.js";

/** PostgreSQL's limit on the parameters of one statement. */
const MAX_PARAMETERS = 65_535;

type Target = Kysely<Database>;

/** The most rows of `columnCount` columns one INSERT may carry, up to `wanted`. */
export function rowsPerStatement(wanted: number, columnCount: number): number {
  return Math.max(1, Math.min(wanted, Math.floor(MAX_PARAMETERS / Math.max(1, columnCount))));
}

/**
 * Keeps every other writer out until the copy commits (readers may still read), and gives up after `timeoutMs`
 * instead of waiting behind a process that holds the tables.
 */
export async function lockTables(db: Target, tables: readonly string[], timeoutMs: number): Promise<void> {
  const waitMs = Math.max(1, Math.floor(timeoutMs));
  await sql.raw(`SET LOCAL lock_timeout = ${waitMs}`).execute(db);
  try {
    await sql`LOCK TABLE ${sql.join(tables.map((table) => sql.table(table)))} IN EXCLUSIVE MODE`.execute(db);
  } catch (error) {
    // 55P03 lock_not_available: the server's words ("canceling statement due to lock timeout") do not say what to do.
    if ((error as { code?: unknown }).code !== "55P03") throw error;
    throw new Error(`another process is writing to the target database (its tables stayed locked for ${waitMs} ms); stop whatever uses it and copy again`);
  }
}

/** The tables that hold at least one row. */
export async function tablesWithRows(db: Target, tables: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const table of tables) {
    const result = await sql<{ present: boolean }>`SELECT EXISTS (SELECT 1 FROM ${sql.table(table)}) AS present`.execute(db);
    if (result.rows[0]?.present === true) found.push(table);
  }
  return found;
}

/** The table's columns a row may be given, in table order: generated ones (messages.text_search) are left out. */
export async function insertableColumns(db: Target, table: string): Promise<string[]> {
  const result = await sql<{ column_name: string }>`
    SELECT column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = ${table} AND is_generated = 'NEVER'
    ORDER BY ordinal_position`.execute(db);
  return result.rows.map((row) => row.column_name);
}

export async function insertRows(db: Target, table: string, columns: readonly string[], rows: readonly SqliteValue[][]): Promise<void> {
  if (rows.length === 0) return;
  const values = rows.map((row) => sql`(${sql.join(row)})`);
  await sql`INSERT INTO ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))}) VALUES ${sql.join(values)}`.execute(db);
}

/** Sets `column` of the rows whose `id` is the first value of each pair to the second. */
export async function setColumnById(db: Target, table: string, column: string, pairs: readonly SqliteValue[][]): Promise<void> {
  if (pairs.length === 0) return;
  const values = sql.join(pairs.map(([id, value]) => sql`(${id ?? null}, ${value ?? null})`));
  await sql`UPDATE ${sql.table(table)} AS t SET ${sql.ref(column)} = v.value FROM (VALUES ${values}) AS v(id, value) WHERE t.id = v.id`.execute(db);
}

/**
 * Moves each sequence past the highest value copied into its column: the copy gave ids (and shared-file versions)
 * explicitly, so the sequences still stand at their start and the next insert would collide with a copied row. An
 * identity column also goes past `issuedIds` of its table (the ids SQLite handed out, deleted rows' too): SQLite never
 * gives an id twice, and a run's queue job is named by its inbound id (Redis keeps finished jobs), so a new message
 * given a pruned message's id would be taken for a run already done.
 */
export async function advanceSequences(db: Target, tables: readonly CopiedTable[], issuedIds: (table: string) => number | undefined = () => undefined): Promise<void> {
  const identities = await sql<{ table_name: string; column_name: string }>`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND is_identity = 'YES'`.execute(db);
  const counters: Array<{ table: string; column: string; sequence: RawBuilder<unknown>; issued?: number }> = [];
  for (const { table_name: table, column_name: column } of identities.rows) {
    const issued = issuedIds(table);
    if (tables.some((copied) => copied.name === table)) counters.push({ table, column, sequence: sql`pg_get_serial_sequence(${table}, ${column})`, ...(issued !== undefined && { issued }) });
  }
  for (const copied of tables) {
    for (const [column, sequence] of Object.entries(copied.sequences ?? {})) counters.push({ table: copied.name, column, sequence: sql`${sequence}::regclass` });
  }
  for (const { table, column, sequence, issued } of counters) {
    const highest = await sql<{ value: number | null }>`SELECT max(${sql.ref(column)}) AS value FROM ${sql.table(table)}`.execute(db);
    const value = Math.max(highest.rows[0]?.value ?? 0, issued ?? 0);
    if (value > 0) await sql`SELECT setval(${sequence}, ${value})`.execute(db);
  }
}

export async function countRows(db: Target, table: string): Promise<number> {
  const result = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}
