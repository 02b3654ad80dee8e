import pg from "pg";

/**
 * node-postgres returns int8 (bigint columns, count(*)) as strings, because not every int8 fits a JS number. The
 * schema keeps ms timestamps, ids and token counters there (see migrations/0001-initial.ts) and the repositories
 * expect numbers, as SQLite returns them; every such value is far below 2^53, so it is read as a number, and one that
 * is not is refused rather than rounded. Given to each pool (`new pg.Pool({ types: int8AsNumber() })`), not installed
 * process-wide with pg.types.setTypeParser, so no other pg user in the process is changed. numeric (sum() of a bigint
 * column, for one) stays a string: cast such an aggregate in SQL (`::bigint`, `::float8`).
 */
export function int8AsNumber(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, "text", parseSafeInteger);
  return types;
}

function parseSafeInteger(text: string): number {
  const value = Number(text);
  // A value past 2^53 would come back as a different number; that is a bug in what was stored, not a value to use.
  if (!Number.isSafeInteger(value)) throw new RangeError(`int8 value ${text} does not fit a JS number exactly`);
  return value;
}
