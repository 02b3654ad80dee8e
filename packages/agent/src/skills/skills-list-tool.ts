import { Type } from "@sinclair/typebox";
import { defineTool, type AnyToolDefinition, type ToolContext, type ToolResult } from "../tools/types.js";
import type { SkillCatalog } from "./skill-cache.js";
import { skillCategories, type SkillEntry, type SkillIndex } from "./skill-index.js";
import { isSkillAvailableOn } from "./skill-platforms.js";

/** Tier 1 keeps each skill near 100 tokens, so long descriptions are cut here (skill_view has the full text). */
const MAX_LISTED_DESCRIPTION_CHARS = 300;

export interface SkillToolEnvironment {
  catalog: SkillCatalog;
  /** Host OS for `platforms` filtering; defaults to process.platform. */
  os?: string;
}

/** The skills usable in this call: the index filtered by the host OS and the caller's chat platform. */
export function visibleSkills(index: SkillIndex, env: SkillToolEnvironment, context: ToolContext): SkillEntry[] {
  const platform = { os: env.os ?? process.platform, chatPlatform: context.caller?.platform };
  return [...index.skills.values()].filter((skill) => isSkillAvailableOn(skill.platforms, platform));
}

export function skillsListTool(env: SkillToolEnvironment): AnyToolDefinition {
  const parameters = Type.Object({
    category: Type.Optional(Type.String({ description: "Only list skills of this category (case-insensitive)." })),
  });
  return defineTool({
    name: "skills_list",
    description:
      "List the available skills (reusable instructions for recurring tasks): name, description, category, version " +
      "and whether each is official or one of your own. Load one with skill_view.",
    guidance:
      "Skills hold tested procedures for recurring kinds of work. When a request looks like one a skill may cover, " +
      "call skills_list, then skill_view(name) for the best match and follow it. Do not guess a skill's contents.",
    parameters,
    concurrency: "parallel-safe",
    handler: async (args, context): Promise<ToolResult> => {
      const index = await env.catalog.index();
      const all = visibleSkills(index, env, context);
      const wanted = args.category?.trim().toLowerCase();
      const skills = wanted === undefined || wanted === "" ? all : all.filter((s) => s.category?.toLowerCase() === wanted);
      const localProblems = index.problems.filter((p) => p.root === env.catalog.localSkillsDir);

      const lines: string[] = [];
      if (skills.length === 0) {
        const categories = skillCategories(all);
        lines.push(
          wanted !== undefined && wanted !== "" && all.length > 0
            ? `No skills in category "${args.category ?? ""}". Categories: ${categories.join(", ") || "(none)"}.`
            : "No skills are available.",
        );
      } else {
        lines.push(`${skills.length} ${skills.length === 1 ? "skill" : "skills"} (load one with skill_view(name)):`);
        for (const skill of skills) lines.push(describeSkill(skill));
      }
      if (localProblems.length > 0) {
        lines.push("", "Your skills that could not be loaded (fix them with skill_manage edit, or delete them):");
        for (const problem of localProblems) lines.push(`- ${problem.folder}: ${problem.reason}`);
      }
      return {
        content: lines.join("\n"),
        details: { count: skills.length, names: skills.map((s) => s.name), problems: localProblems.length },
      };
    },
  });
}

function describeSkill(skill: SkillEntry): string {
  const title = skill.displayName !== undefined && skill.displayName !== skill.name ? ` "${skill.displayName}"` : "";
  const tags = [skill.category, skill.version === undefined ? undefined : `v${skill.version}`, skill.source]
    .filter((tag): tag is string => tag !== undefined)
    .join(", ");
  const description = oneLine(skill.description);
  const shown =
    description.length > MAX_LISTED_DESCRIPTION_CHARS ? `${description.slice(0, MAX_LISTED_DESCRIPTION_CHARS - 1)}…` : description;
  return `- ${skill.name}${title} [${tags}]: ${shown}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
