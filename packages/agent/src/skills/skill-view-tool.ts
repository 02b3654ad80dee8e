import { promises as fs } from "node:fs";
import { Type } from "@sinclair/typebox";
import { fsFailure, toolError } from "../builtin-tools/fs-errors.js";
import { formatBytes } from "../builtin-tools/text-file.js";
import { defineTool, type AnyToolDefinition, type ToolContext, type ToolResult } from "../tools/types.js";
import { parseSkillDocument } from "./frontmatter.js";
import { preprocessSkillBody, type InlineShellRunner } from "./preprocess.js";
import type { SkillEntry } from "./skill-index.js";
import { visibleSkills, type SkillToolEnvironment } from "./skills-list-tool.js";
import { DEFAULT_MAX_SUPPORT_FILE_BYTES, listSupportFiles, readSupportFile, resolveSupportPath } from "./support-files.js";

export interface SkillViewOptions extends SkillToolEnvironment {
  /** Run `!`cmd`!` lines of a skill when it is loaded. Off by default: skill text would otherwise run commands. */
  allowInlineShell?: boolean;
  runShell?: InlineShellRunner;
  maxSupportFileBytes?: number;
  /** Environment inline commands derive theirs from (after scrubbing); defaults to process.env. */
  baseEnv?: Record<string, string | undefined>;
}

// Above the largest SKILL.md and support file that can be loaded, so a loaded file is never cut to a preview.
const MAX_RESULT_CHARS = 300_000;

export function skillViewTool(options: SkillViewOptions): AnyToolDefinition {
  const maxSupportFileBytes = options.maxSupportFileBytes ?? DEFAULT_MAX_SUPPORT_FILE_BYTES;
  const parameters = Type.Object({
    name: Type.String({ minLength: 1, description: "Skill name as skills_list shows it." }),
    file: Type.Optional(
      Type.String({ description: "A supporting file of the skill to load instead, e.g. references/guide.md." }),
    ),
    raw: Type.Optional(
      Type.Boolean({ description: "Return SKILL.md exactly as stored, without filling in variables (use before patching)." }),
    ),
  });
  return defineTool({
    name: "skill_view",
    description:
      "Load a skill's full instructions (SKILL.md) and the list of its supporting files, or, with file, one supporting " +
      "file from its references/, templates/, scripts/ or assets/ folder.",
    parameters,
    concurrency: "parallel-safe",
    maxResultChars: MAX_RESULT_CHARS,
    handler: async (args, context): Promise<ToolResult> => {
      const index = await options.catalog.index();
      const skill = index.skills.get(args.name);
      if (skill === undefined) return toolError(`There is no skill named "${args.name}"; skills_list shows the available skills.`);
      if (!visibleSkills(index, options, context).includes(skill)) {
        return toolError(`The skill "${args.name}" is not available on this platform (${(skill.platforms ?? []).join(", ")}).`);
      }
      if (args.file !== undefined) return viewSupportFile(skill, args.file, maxSupportFileBytes);
      return viewSkill(skill, args.raw === true, options, context);
    },
  });
}

async function viewSkill(skill: SkillEntry, raw: boolean, options: SkillViewOptions, context: ToolContext): Promise<ToolResult> {
  let text: string;
  try {
    text = await fs.readFile(skill.skillFile, "utf8");
  } catch (error) {
    return fsFailure(error, `${skill.name}/SKILL.md`);
  }
  const parsed = parseSkillDocument(text, skill.name);
  if (!parsed.ok) return toolError(`The skill "${skill.name}" is currently invalid: ${parsed.error}.`);

  const head = text.slice(0, text.length - parsed.body.length);
  let body = parsed.body;
  let inline = { inlineCommands: 0, inlineCommandsRun: 0 };
  if (!raw) {
    const processed = await preprocessSkillBody(parsed.body, {
      skillDir: skill.dir,
      sessionId: context.sessionId,
      allowInlineShell: options.allowInlineShell === true,
      signal: context.signal,
      runShell: options.runShell,
      baseEnv: options.baseEnv,
    });
    body = processed.text;
    inline = { inlineCommands: processed.inlineCommands, inlineCommandsRun: processed.inlineCommandsRun };
  }

  const files = await listSupportFiles(skill.dir);
  const tags = [skill.source, skill.version === undefined ? undefined : `v${skill.version}`].filter((t) => t !== undefined);
  const sections = [`Skill "${skill.name}" (${tags.join(", ")}), folder: ${skill.dir}`, "", `${head}${body}`.trimEnd()];
  if (files.length > 0) {
    sections.push("", `Supporting files (load with skill_view(name="${skill.name}", file=...)):`);
    for (const file of files) sections.push(`- ${file.path} (${formatBytes(file.bytes)})`);
  }
  return {
    content: sections.join("\n"),
    details: { name: skill.name, source: skill.source, files: files.map((f) => f.path), raw, ...inline },
  };
}

async function viewSupportFile(skill: SkillEntry, file: string, maxBytes: number): Promise<ToolResult> {
  const resolved = await resolveSupportPath(skill.dir, file);
  if (!resolved.ok) return toolError(resolved.error);
  const read = await readSupportFile(resolved, maxBytes);
  if (!read.ok) return toolError(read.error);
  return {
    content: `File ${skill.name}/${resolved.relative} (${formatBytes(read.bytes)}):\n${read.text}`,
    details: { name: skill.name, file: resolved.relative, bytes: read.bytes },
  };
}
