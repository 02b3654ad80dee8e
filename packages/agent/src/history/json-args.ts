export type ArgumentsRepair =
  | { ok: true; value: Record<string, unknown>; repaired: boolean }
  | { ok: false; reason: string };

/**
 * Tool-call arguments must be a JSON object. Some providers double-encode them (a JSON string holding JSON) or emit
 * trailing commas; both have exactly one reading, so they are repaired. Anything else is left for validation to report.
 */
export function repairArguments(value: unknown): ArgumentsRepair {
  if (isPlainObject(value)) return { ok: true, value, repaired: false };
  if (typeof value !== "string") return { ok: false, reason: `arguments are ${describe(value)}, not an object` };

  let current: unknown = value;
  for (let depth = 0; depth < 3 && typeof current === "string"; depth += 1) {
    const parsed = parseLenient(current);
    if (!parsed.ok) return { ok: false, reason: "arguments are not valid JSON" };
    current = parsed.value;
  }
  if (isPlainObject(current)) return { ok: true, value: current, repaired: true };
  return { ok: false, reason: `arguments decode to ${describe(current)}, not an object` };
}

function parseLenient(text: string): { ok: true; value: unknown } | { ok: false } {
  const attempts = [text, withoutTrailingCommas(text)];
  for (const attempt of attempts) {
    try {
      return { ok: true, value: JSON.parse(attempt) as unknown };
    } catch {
      // try the next reading
    }
  }
  return { ok: false };
}

/** Removes commas that directly precede `}` or `]`, ignoring anything inside string literals. */
export function withoutTrailingCommas(text: string): string {
  let out = "";
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i] as string;
    if (inString) {
      out += ch;
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
      continue;
    }
    if (ch === ",") {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j] as string)) j += 1;
      if (text[j] === "}" || text[j] === "]") continue;
    }
    out += ch;
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "missing";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}
