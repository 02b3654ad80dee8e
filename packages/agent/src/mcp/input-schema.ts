/**
 * An MCP server's tool input schema, made into parameters every provider takes. The schema goes out with every
 * request of every chat, and a provider refuses the whole request over one flaw in one tool (OpenAI: "array schema
 * missing items", a `properties` that is not an object): one careless server would make the bot answer nobody. So
 * the flaws providers refuse and servers commonly have are mended here, where the meaning is plain:
 * - the top level is an object schema, and `$schema` is dropped (some providers reject unknown top-level keys);
 * - an array without `items` takes any items (`{}`);
 * - `properties` that is not an object is dropped, and so is an entry of it that is not a schema (`true`, "anything",
 *   becomes `{}`); a `required` keeps only its names (a `required` that is no list goes), so the sound ones still hold;
 * - `items: true` ("anything") becomes `{}`, and the schemas of a tuple's `items` list are mended too.
 * Nested schemas are mended the same way, to a bounded depth (deeper ones are left as they are).
 */
export function providerSafeInputSchema(inputSchema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = inputSchema;
  return { ...mend(schema, 0), type: "object" };
}

const MAX_DEPTH = 32;
/** Keywords whose value is one schema. */
const ONE_SCHEMA = ["items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"];
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions"];

function mend(schema: Record<string, unknown>, depth: number): Record<string, unknown> {
  if (depth >= MAX_DEPTH) return schema;
  const mended: Record<string, unknown> = { ...schema };
  for (const key of ONE_SCHEMA) {
    const value = mended[key];
    if (isRecord(value)) mended[key] = mend(value, depth + 1);
  }
  // Only for `items`: `additionalProperties: true` and the like are what providers expect there.
  if (mended.items === true) mended.items = {};
  if (Array.isArray(mended.items)) mended.items = mendList(mended.items, depth);
  for (const key of SCHEMA_LISTS) {
    const value = mended[key];
    if (Array.isArray(value)) mended[key] = mendList(value, depth);
  }
  for (const key of SCHEMA_MAPS) {
    const value = mended[key];
    if (value === undefined) continue;
    if (!isRecord(value)) {
      delete mended[key];
      continue;
    }
    // JSON Schema's `true` (anything) is written as `{}`, which every provider reads; `false` and non-schemas go.
    const entries = Object.entries(value).flatMap(([name, entry]): Array<[string, Record<string, unknown>]> => (entry === true ? [[name, {}]] : isRecord(entry) ? [[name, mend(entry, depth + 1)]] : []));
    mended[key] = Object.fromEntries(entries);
  }
  if (Array.isArray(mended.required)) mended.required = mended.required.filter((name) => typeof name === "string");
  else delete mended.required;
  if (isArrayType(mended.type) && mended.items === undefined && mended.prefixItems === undefined) mended.items = {};
  return mended;
}

function mendList(schemas: unknown[], depth: number): unknown[] {
  return schemas.map((item) => (isRecord(item) ? mend(item, depth + 1) : item));
}

function isArrayType(type: unknown): boolean {
  return type === "array" || (Array.isArray(type) && type.includes("array"));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
