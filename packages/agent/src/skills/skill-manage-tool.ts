import { Type, type Static } from "@sinclair/typebox";
import { toolError } from "../builtin-tools/fs-errors.js";
import { defineTool, type AnyToolDefinition, type ToolContext, type ToolResult } from "../tools/types.js";
import type { LocalSkillStore, SkillChange } from "./local-skill-store.js";
import { detectPersonalData, mergePersonalData, personalDataRefusal, type KnownPersonalData } from "./personal-data.js";

const SkillManageParameters = Type.Object({
  action: Type.Union(
    [
      Type.Literal("create"),
      Type.Literal("edit"),
      Type.Literal("patch"),
      Type.Literal("delete"),
      Type.Literal("write_file"),
      Type.Literal("remove_file"),
    ],
    { description: "What to do." },
  ),
  name: Type.String({ minLength: 1, description: "Skill name: lowercase letters, digits, '.', '_' or '-' (≤ 64 chars)." }),
  content: Type.Optional(Type.String({ description: "create/edit: the complete SKILL.md (YAML frontmatter + Markdown body)." })),
  old_string: Type.Optional(Type.String({ description: "patch: the text in SKILL.md to replace." })),
  new_string: Type.Optional(Type.String({ description: "patch: the replacement text (may be empty to delete)." })),
  file_path: Type.Optional(
    Type.String({ description: "write_file/remove_file: path inside references/, templates/, scripts/ or assets/." }),
  ),
  file_content: Type.Optional(Type.String({ description: "write_file: the file's full text." })),
});
type SkillManageArgs = Static<typeof SkillManageParameters>;

/** Which optional fields each action needs; anything missing is reported before touching the disk. */
const REQUIRED_FIELDS: Record<SkillManageArgs["action"], readonly (keyof SkillManageArgs)[]> = {
  create: ["content"],
  edit: ["content"],
  patch: ["old_string", "new_string"],
  delete: [],
  write_file: ["file_path", "file_content"],
  remove_file: ["file_path"],
};

export interface SkillManageOptions {
  /**
   * The names, ids and memory entries of the conversation a call comes from, so none of them lands in a skill
   * everyone shares. Added to the run's own (RunCaller.personalData); without either only the caller's ids (and
   * e-mail addresses and phone numbers anywhere) are refused.
   */
  personalData?: (context: ToolContext) => KnownPersonalData | Promise<KnownPersonalData>;
}

export function skillManageTool(store: LocalSkillStore, options: SkillManageOptions = {}): AnyToolDefinition {
  return defineTool({
    name: "skill_manage",
    description:
      "Create and improve your own skills: create (new skill from a full SKILL.md), edit (replace SKILL.md), patch " +
      "(replace one piece of SKILL.md), delete, write_file / remove_file (supporting files in references/, templates/, " +
      "scripts/ or assets/). Official skills are read-only.",
    guidance:
      "After solving a non-trivial task that is likely to recur, or when the user corrects how you do something, " +
      "record the procedure as a skill with skill_manage. A SKILL.md starts with YAML frontmatter holding at least " +
      "`name` (equal to the skill name) and `description` (what it does and when to use it), optionally " +
      "`displayName`, `category`, `version` (1.0.0) and `platforms`, followed by Markdown instructions. Prefer patch " +
      "for small corrections (view the skill with raw=true first to copy the exact text). Keep SKILL.md short and move " +
      "long reference material into references/ files. Never store secrets in skills.",
    parameters: SkillManageParameters,
    concurrency: "never-parallel",
    handler: async (args, context): Promise<ToolResult> => {
      const missing = REQUIRED_FIELDS[args.action].filter((field) => args[field] === undefined);
      if (missing.length > 0) return toolError(`The ${args.action} action needs ${missing.join(" and ")}.`);
      const written = [args.content, args.new_string, args.file_content].filter((text): text is string => text !== undefined);
      if (written.length > 0) {
        const finding = detectPersonalData(written.join("\n"), await knownPersonalData(context, options));
        if (finding !== undefined) {
          context.logger.warn("skill_manage refused personal data", { skill: args.name, action: args.action, kind: finding.kind });
          return toolError(personalDataRefusal(finding));
        }
      }
      return toResult(await dispatch(store, args));
    },
  });
}

async function knownPersonalData(context: ToolContext, options: SkillManageOptions): Promise<KnownPersonalData> {
  const configured = (await options.personalData?.(context)) ?? {};
  const ofRun = (await context.caller?.personalData?.()) ?? {};
  const callerIds = [context.caller?.userId, context.caller?.chatId].filter((id): id is string => id !== undefined);
  return mergePersonalData(configured, ofRun, { ids: callerIds });
}

function dispatch(store: LocalSkillStore, args: SkillManageArgs): Promise<SkillChange> {
  switch (args.action) {
    case "create":
      return store.create(args.name, args.content ?? "");
    case "edit":
      return store.edit(args.name, args.content ?? "");
    case "patch":
      return store.patch(args.name, args.old_string ?? "", args.new_string ?? "");
    case "delete":
      return store.delete(args.name);
    case "write_file":
      return store.writeFile(args.name, args.file_path ?? "", args.file_content ?? "");
    case "remove_file":
      return store.removeFile(args.name, args.file_path ?? "");
  }
}

function toResult(change: SkillChange): ToolResult {
  return change.ok ? { content: change.message, details: change.details } : toolError(change.error);
}
