import type { Compilable, Kysely } from "kysely";
import type { Database } from "./database.js";

/** A query's SQL with the values of one call, in the order its placeholders take them. What SqlRunner runs. */
export interface BoundQuery<R> {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** Never set: it only carries the row type. */
  readonly row?: R;
  /**
   * A list query of a length past those kept prepared (preparedListQuery): compiled for this call alone, so a runner
   * must not keep it prepared. On PostgreSQL every named statement stays planned in each connection's backend, and
   * a run's messages in batches of any length up to 200 made one per length (30 MB for 200 lengths in one backend).
   */
  readonly oneOff?: true;
}

/** Stands for the value named `name` in a prepared query's builder; it must reach Kysely as a plain value. */
export type Param<P> = <K extends keyof P & string>(name: K) => P[K];

/** The query for one call's values; the SQL is compiled once per Kysely instance (so once per dialect). */
export type PreparedQuery<P, R> = (db: Kysely<Database>, values: P) => BoundQuery<R>;

interface Template {
  sql: string;
  /** Per placeholder: the name of the value it takes, or undefined for a constant of the query itself. */
  names: (string | undefined)[];
  constants: unknown[];
}

/**
 * Building and compiling a Kysely query costs more than SQLite takes to run most of them (tens of µs each), and the
 * store runs some thirty per answered message. So a hot query is built once, with a marker for each value that
 * changes between calls, and compiled by the database's own Kysely instance; each call only fills in its values.
 * Values fixed in the builder (a status list) stay bound parameters, as Kysely makes them; write with `sql.lit` a
 * LIMIT (SQLite runs ORDER BY ... LIMIT several times slower with a bound one) and a value a partial index is defined
 * on (with a bound one SQLite cannot use the index: sessions.ts). The positions come from Kysely's compiled
 * parameters, so this holds for any dialect's placeholders (`?`, `$1`).
 *
 * The builder must hand each `param(...)` straight to Kysely as a value (not compute with it): a marker that does not
 * come back among the compiled parameters fails the first call, as does one inlined into the SQL text. A list of
 * values (`in (...)`) is one parameter per item: preparedListQuery.
 */
export function preparedQuery<P extends object, R>(build: (db: Kysely<Database>, param: Param<P>) => Compilable<R>): PreparedQuery<P, R> {
  const templates = new WeakMap<Kysely<Database>, Template>();
  return (db, values) => {
    let template = templates.get(db);
    if (template === undefined) {
      template = compileTemplate(db, build);
      templates.set(db, template);
    }
    return { sql: template.sql, parameters: bind(template, values as Record<string, unknown>) };
  };
}

/** Lengths of list prepared at most per query; a longer tail of odd lengths is built and compiled per call. */
const MAX_LIST_LENGTHS = 16;
const LIST_ITEM = "\u0000item";

/**
 * Like preparedQuery, for a query with a list of values of any length (e.g. `platform in (...)`): the builder gets one
 * marker per item, and each length is compiled once.
 */
export function preparedListQuery<P extends object, T, R>(
  build: (db: Kysely<Database>, param: Param<P>, items: readonly T[]) => Compilable<R>,
): (db: Kysely<Database>, values: P, items: readonly T[]) => BoundQuery<R> {
  const byLength = new Map<number, PreparedQuery<P, R>>();
  return (db, values, items) => {
    const length = items.length;
    let query = byLength.get(length);
    let oneOff = false;
    if (query === undefined) {
      query = preparedQuery((built, param: Param<P>) => {
        const itemParam = param as unknown as (name: string) => T;
        return build(built, param, Array.from({ length }, (_, index) => itemParam(`${LIST_ITEM}${index}`)));
      });
      if (byLength.size < MAX_LIST_LENGTHS) byLength.set(length, query);
      else oneOff = true;
    }
    const withItems: Record<string, unknown> = { ...(values as Record<string, unknown>) };
    items.forEach((item, index) => {
      withItems[`${LIST_ITEM}${index}`] = item;
    });
    const bound = query(db, withItems as P);
    return oneOff ? { ...bound, oneOff: true } : bound;
  };
}

let templateCount = 0;

function compileTemplate<P extends object, R>(db: Kysely<Database>, build: (db: Kysely<Database>, param: Param<P>) => Compilable<R>): Template {
  templateCount += 1;
  const prefix = `\u0000hermes-param-${templateCount}-${Math.random().toString(36).slice(2)}:`;
  const markers = new Map<string, string>();
  const param = ((name: string) => {
    const marker = `${prefix}${name}`;
    markers.set(marker, name);
    return marker;
  }) as Param<P>;
  const compiled = build(db, param).compile();
  if (compiled.sql.includes(prefix)) throw new Error(`a parameter of a prepared query was inlined into its SQL: ${compiled.sql}`);
  const names: (string | undefined)[] = [];
  const constants: unknown[] = [];
  const used = new Set<string>();
  for (const parameter of compiled.parameters) {
    const name = typeof parameter === "string" ? markers.get(parameter) : undefined;
    names.push(name);
    constants.push(name === undefined ? parameter : undefined);
    if (name !== undefined) used.add(name);
  }
  for (const name of markers.values()) {
    if (!used.has(name)) throw new Error(`parameter "${name}" of a prepared query did not reach Kysely as a value: ${compiled.sql}`);
  }
  return { sql: compiled.sql, names, constants };
}

function bind(template: Template, values: Record<string, unknown>): unknown[] {
  const { names, constants } = template;
  const parameters = new Array<unknown>(names.length);
  for (let index = 0; index < names.length; index += 1) {
    const name = names[index];
    if (name === undefined) {
      parameters[index] = constants[index];
      continue;
    }
    const value = values[name];
    // Kysely leaves an undefined value out of the query; a compiled query cannot, so it is a caller's mistake.
    if (value === undefined) throw new Error(`no value for parameter "${name}" of: ${template.sql}`);
    parameters[index] = value;
  }
  return parameters;
}
