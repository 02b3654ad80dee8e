const FENCED_BLOCK = /```[a-zA-Z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```/g;
/** Enough to get past a brace or two in leading prose without scanning a long reply quadratically. */
const MAX_OBJECT_STARTS = 8;

/**
 * The JSON objects a model reply may carry, most likely first: the whole reply, fenced code blocks, then balanced
 * `{…}` spans (models add prose before or after the JSON despite being told not to). Only objects are returned.
 */
export function jsonObjectsIn(reply: string): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const tried = new Set<string>();
  const attempt = (candidate: string): void => {
    const text = candidate.trim();
    if (text === "" || tried.has(text)) return;
    tried.add(text);
    const parsed = parseJson(text);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) found.push(parsed as Record<string, unknown>);
  };
  attempt(reply);
  for (const match of reply.matchAll(FENCED_BLOCK)) attempt(match[1] ?? "");
  let starts = 0;
  for (let index = reply.indexOf("{"); index !== -1 && starts < MAX_OBJECT_STARTS; index = reply.indexOf("{", index + 1)) {
    starts += 1;
    const end = balancedEnd(reply, index);
    if (end !== undefined) attempt(reply.slice(index, end + 1));
  }
  return found;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Index of the brace closing the one at `start`, skipping braces inside JSON strings; undefined when unbalanced. */
function balancedEnd(text: string, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index += 1;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{") depth += 1;
    else if (char === "}") {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return undefined;
}
