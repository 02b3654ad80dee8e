import { stringify } from "yaml";
import { MAX_DESCRIPTION_LENGTH, MAX_SKILL_NAME_LENGTH, checkSkillName } from "../skills/frontmatter.js";
import type { FrameworkDimension, ReflectionFramework } from "./framework.js";

export const GENERATED_SKILL_CATEGORY = "reflection";
export const GENERATED_SKILL_VERSION = "0.1.0";
/** A model reply shorter than this is not a usable skill body. */
const MIN_BODY_CHARS = 40;

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/**
 * `<framework id>-<dimension id>`, valid under the skill name rules. When too long the framework part is cut, since
 * the dimension part is what tells two generated skills of one framework apart. Undefined when no valid name remains.
 */
export function generatedSkillName(frameworkId: string, dimensionId: string): string | undefined {
  const dimension = slug(dimensionId).slice(0, MAX_SKILL_NAME_LENGTH);
  const room = MAX_SKILL_NAME_LENGTH - dimension.length - 1;
  const framework = room > 0 ? slug(frameworkId).slice(0, room).replace(/-+$/, "") : "";
  const name = [framework, dimension].filter((part) => part !== "").join("-");
  return checkSkillName(name).ok ? name : undefined;
}

function clipDescription(text: string): string {
  return text.length <= MAX_DESCRIPTION_LENGTH ? text : `${text.slice(0, MAX_DESCRIPTION_LENGTH - 1)}…`;
}

/** The frontmatter is ours, never the model's, so a generated skill always has a valid, matching one. */
export function generatedSkillDocument(name: string, framework: ReflectionFramework, dimension: FrameworkDimension, body: string): string {
  const frontmatter = {
    name,
    displayName: dimension.name,
    description: clipDescription(`${dimension.name} (${framework.name}): ${dimension.description}`),
    category: GENERATED_SKILL_CATEGORY,
    version: GENERATED_SKILL_VERSION,
    metadata: { generated_by: "background-reviewer", framework: framework.id, dimension: dimension.id },
  };
  return `---\n${stringify(frontmatter, { lineWidth: 0 })}---\n\n${body.trim()}\n`;
}

/** Used when the model call fails or its reply is unusable: the dimension's own words, arranged as a skill. */
export function fallbackSkillBody(framework: ReflectionFramework, dimension: FrameworkDimension): string {
  const cues = dimension.keywords.map((keyword) => keyword.replace(/\*$/, "").trim()).filter((keyword) => keyword !== "");
  const lines = [
    `# ${dimension.name}`,
    "",
    `Part of the "${framework.name}" framework: ${framework.description}`,
    "",
    "## When to use",
    "",
    `Whenever a request falls under ${framework.name.toLowerCase()}${cues.length > 0 ? `, especially when it mentions ${cues.slice(0, 8).join(", ")}` : ""}.`,
    "",
    "## Steps",
    "",
    `1. Before writing the answer, decide what "${dimension.name}" requires for this request: ${dimension.description}`,
    "2. Gather what is needed for it with the available tools instead of relying on memory.",
    "3. Put it in the answer explicitly, where the reader will see it.",
    "",
    "## Checklist before answering",
    "",
    `- Does the answer cover "${dimension.name}"? If it truly does not apply, say so in one sentence instead of skipping it silently.`,
  ];
  return lines.join("\n");
}

/**
 * The model's reply made into a skill body: an enclosing code fence and any frontmatter it wrote are removed.
 * Undefined when too little is left to be a skill.
 */
export function cleanGeneratedBody(reply: string): string | undefined {
  let text = reply.replace(/\r\n?/g, "\n").trim();
  const fenced = /^```[a-zA-Z0-9_-]*\n([\s\S]*?)\n```$/.exec(text);
  if (fenced) text = (fenced[1] ?? "").trim();
  const frontmatter = /^---\n[\s\S]*?\n(?:---|\.\.\.)\n/.exec(text);
  if (frontmatter) text = text.slice(frontmatter[0].length).trim();
  return text.length >= MIN_BODY_CHARS ? text : undefined;
}
