import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { parseDocument } from "yaml";
import { describeInvalidPattern } from "./match-event.js";

export const DEFAULT_HOOK_TIMEOUT_MS = 5000;
// A hook runs inside a reply; anything slower than this is a job for a queue, not a hook.
const MAX_HOOK_TIMEOUT_MS = 600_000;

/** HOOK.yaml. Extra keys (author, version, …) are allowed so manifests can carry their own notes. */
export const HookManifestSchema = Type.Object({
  // The name doubles as the install folder, so it must be a safe single path segment.
  name: Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]*$", maxLength: 64 }),
  description: Type.String({ maxLength: 1000 }),
  events: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  enabled: Type.Optional(Type.Boolean()),
  timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_HOOK_TIMEOUT_MS })),
});

export type HookManifestFile = Static<typeof HookManifestSchema>;

export interface HookManifest {
  name: string;
  description: string;
  events: string[];
  enabled: boolean;
  timeoutMs: number;
}

export type ManifestResult = { ok: true; manifest: HookManifest } | { ok: false; error: string };

export function parseHookManifest(text: string): ManifestResult {
  const doc = parseDocument(text, { prettyErrors: true });
  const yamlError = doc.errors[0];
  if (yamlError) {
    const position = yamlError.linePos?.[0];
    const where = position ? ` at line ${position.line}, column ${position.col}` : "";
    return { ok: false, error: `invalid YAML${where}: ${firstLine(yamlError.message)}` };
  }
  const data: unknown = doc.toJS();
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return { ok: false, error: "must be a mapping with name, description and events" };
  }
  if (!Value.Check(HookManifestSchema, data)) {
    // TypeBox reports a missing field twice ("required", then "expected string"); the first says it best.
    const byField = new Map<string, string>();
    for (const problem of Value.Errors(HookManifestSchema, data)) {
      const field = fieldName(problem.path);
      if (!byField.has(field)) byField.set(field, problem.message);
    }
    const problems = [...byField].slice(0, 3).map(([field, message]) => `${field}: ${message}`);
    return { ok: false, error: problems.join("; ") };
  }
  const badPatterns = data.events
    .map((pattern, index) => ({ index, reason: describeInvalidPattern(pattern) }))
    .filter((entry) => entry.reason !== undefined);
  if (badPatterns.length > 0) {
    return { ok: false, error: badPatterns.map((entry) => `events[${entry.index}]: ${entry.reason}`).join("; ") };
  }
  return {
    ok: true,
    manifest: {
      name: data.name,
      description: data.description,
      events: [...new Set(data.events)],
      enabled: data.enabled ?? true,
      timeoutMs: data.timeout_ms ?? DEFAULT_HOOK_TIMEOUT_MS,
    },
  };
}

function fieldName(pointer: string): string {
  const parts = pointer.split("/").filter((part) => part !== "");
  if (parts.length === 0) return "HOOK.yaml";
  return parts.map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`)).join("");
}

function firstLine(message: string): string {
  return (message.split("\n")[0] ?? message).replace(/ at line \d+, column \d+:?$/, "").trim();
}
