/** Reads Bot API parameters the way Telegram accepts them: a JSON body, a form body, or the query string. */
export function parseParams(contentType: string | undefined, body: string, query: URLSearchParams): Record<string, unknown> | undefined {
  const params: Record<string, unknown> = {};
  for (const [key, value] of query) params[key] = decodeFormValue(value);
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (body.trim() === "") return params;
  if (type === "application/json") {
    try {
      const parsed: unknown = JSON.parse(body);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
      return { ...params, ...(parsed as Record<string, unknown>) };
    } catch {
      return undefined;
    }
  }
  if (type === "application/x-www-form-urlencoded") {
    for (const [key, value] of new URLSearchParams(body)) params[key] = decodeFormValue(value);
    return params;
  }
  return undefined;
}

/** Form values carry objects and arrays as JSON text; everything else stays text (methods read numbers from it). */
function decodeFormValue(value: string): unknown {
  if (/^[[{]/.test(value)) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}
