import { stdSerializers } from "pino";

// Deep enough for `{ error: { cause: Error } }` and request-shaped fields; deeper values still get the last pass.
const MAX_DEPTH = 4;

/**
 * Readies a log record's fields before pino serializes them: every Error (also inside plain objects and arrays)
 * becomes pino's standard `{type, message, stack, …}`, so its stack reaches the log instead of `{}`, and every string
 * is masked while still unescaped — in a JSON line a token right after a newline reads `\nsk-…`, which the token
 * shapes cannot see. Returns the same object when nothing changed.
 */
export function prepareFields(fields: Record<string, unknown>, mask: (text: string) => string): Record<string, unknown> {
  return prepare(fields, mask, 0) as Record<string, unknown>;
}

function prepare(value: unknown, mask: (text: string) => string, depth: number): unknown {
  if (typeof value === "string") return mask(value);
  if (value instanceof Error) return prepare(stdSerializers.err(value), mask, depth);
  if (depth >= MAX_DEPTH || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const items = value.map((item) => prepare(item, mask, depth + 1));
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  if (!isPlainObject(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const next = prepare(item, mask, depth + 1);
    if (next !== item) {
      copy ??= { ...value };
      copy[key] = next;
    }
  }
  return copy ?? value;
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
