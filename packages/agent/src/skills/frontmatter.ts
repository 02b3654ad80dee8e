import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { parse as parseYaml } from "yaml";

export const SKILL_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;
export const MAX_SKILL_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;

/**
 * The metadata block of a SKILL.md. Unknown keys (author, license, …) are allowed and ignored so skills written for
 * other Hermes versions still load.
 */
export const SkillFrontmatterSchema = Type.Object({
  name: Type.String({ pattern: SKILL_NAME_PATTERN.source, minLength: 1, maxLength: MAX_SKILL_NAME_LENGTH }),
  description: Type.String({ minLength: 1, maxLength: MAX_DESCRIPTION_LENGTH }),
  displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
  category: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  version: Type.Optional(Type.String({ pattern: "^\\d+\\.\\d+\\.\\d+(?:[-+][0-9A-Za-z.+-]+)?$" })),
  platforms: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { maxItems: 32 })),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type SkillFrontmatter = Static<typeof SkillFrontmatterSchema>;

export interface SkillDocument {
  frontmatter: SkillFrontmatter;
  /** Everything after the closing delimiter, line breaks as written. */
  body: string;
}

export type SkillDocumentResult = ({ ok: true } & SkillDocument) | { ok: false; error: string };

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*$/m;

/** Splits and validates a SKILL.md. `expectedName` is the folder name the skill lives in, when known. */
export function parseSkillDocument(text: string, expectedName?: string): SkillDocumentResult {
  const opening = OPENING.exec(text);
  if (opening === null) {
    return { ok: false, error: "SKILL.md must start with a YAML frontmatter block opened by a '---' line" };
  }
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (closing === null) return { ok: false, error: "the frontmatter block is not closed by a '---' line" };

  const yamlText = rest.slice(0, closing.index);
  const afterClosing = rest.slice(closing.index + closing[0].length);
  const body = afterClosing.replace(/^\r?\n/, "");

  let data: unknown;
  try {
    data = parseYaml(yamlText, { uniqueKeys: true, prettyErrors: true });
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return { ok: false, error: `the frontmatter is not valid YAML: ${message}` };
  }
  const checked = validateFrontmatter(data);
  if (!checked.ok) return checked;
  if (expectedName !== undefined && checked.frontmatter.name !== expectedName) {
    return {
      ok: false,
      error: `frontmatter name "${checked.frontmatter.name}" does not match the folder name "${expectedName}"`,
    };
  }
  return { ok: true, frontmatter: checked.frontmatter, body };
}

export type FrontmatterCheck = { ok: true; frontmatter: SkillFrontmatter } | { ok: false; error: string };

/** Validates already-parsed frontmatter (also used for entries read back from the disk snapshot). */
export function validateFrontmatter(data: unknown): FrontmatterCheck {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return { ok: false, error: "the frontmatter must be a mapping of keys to values (name, description, …)" };
  }
  if (Value.Check(SkillFrontmatterSchema, data)) return { ok: true, frontmatter: data };
  const first = Value.Errors(SkillFrontmatterSchema, data).First();
  if (first === undefined) return { ok: false, error: "the frontmatter is invalid" };
  return { ok: false, error: describeFieldError(first.path, first.value) };
}

export type SkillNameCheck = { ok: true } | { ok: false; error: string };

export function checkSkillName(name: string): SkillNameCheck {
  if (name.length === 0) return { ok: false, error: "the skill name is empty" };
  if (name.length > MAX_SKILL_NAME_LENGTH) {
    return { ok: false, error: `the skill name is longer than ${MAX_SKILL_NAME_LENGTH} characters` };
  }
  if (!SKILL_NAME_PATTERN.test(name)) {
    return {
      ok: false,
      error: `the skill name "${name}" is invalid: use lowercase letters, digits, '.', '_' or '-', starting with a letter or digit`,
    };
  }
  return { ok: true };
}

// TypeBox's own messages name the schema keyword, not what an author should write, so each field gets a sentence.
function describeFieldError(pointer: string, value: unknown): string {
  const field = pointer.split("/")[1] ?? "";
  const missing = value === undefined;
  switch (field) {
    case "name":
      if (missing) return "the frontmatter has no name";
      if (typeof value === "string") {
        const check = checkSkillName(value);
        if (!check.ok) return check.error;
      }
      return "name must be a string";
    case "description":
      if (missing) return "the frontmatter has no description";
      if (typeof value === "string" && value.length > MAX_DESCRIPTION_LENGTH) {
        return `description is longer than ${MAX_DESCRIPTION_LENGTH} characters`;
      }
      return "description must be a non-empty string";
    case "version":
      return "version must look like 1.0.0 (quote it in YAML if needed)";
    case "platforms":
      return "platforms must be a list of platform names, e.g. [all] or [linux, macos]";
    case "metadata":
      return "metadata must be a mapping";
    case "displayName":
    case "category":
      return `${field} must be a short non-empty string`;
    default:
      return `invalid frontmatter field at ${pointer || "(root)"}`;
  }
}
