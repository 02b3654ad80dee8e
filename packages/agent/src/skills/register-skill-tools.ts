import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "../observability/logger.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { AnyToolDefinition } from "../tools/types.js";
import { LocalSkillStore, type SkillChangeListener } from "./local-skill-store.js";
import type { InlineShellRunner } from "./preprocess.js";
import { SkillCatalog } from "./skill-cache.js";
import { skillManageTool, type SkillManageOptions } from "./skill-manage-tool.js";
import { skillViewTool } from "./skill-view-tool.js";
import { skillsListTool } from "./skills-list-tool.js";

export const SKILL_TOOL_NAMES = ["skills_list", "skill_view", "skill_manage"] as const;

export interface SkillToolsOptions {
  /** Skill folders, lowest priority first (bundled skills, then `$HERMES_HOME/skills`). */
  roots: readonly string[];
  /** Where skill_manage writes; must be one of `roots`. Without it skill_manage is not offered. */
  localSkillsDir?: string;
  /** Folder for the index snapshot; without it the index is cached in memory only. */
  cacheDir?: string;
  /** Run `!`cmd`!` lines when a skill is loaded (default false). */
  allowInlineShell?: boolean;
  onSkillChanged?: SkillChangeListener;
  /** What skill_manage must keep out of shared skills (see SkillManageOptions). */
  personalData?: SkillManageOptions["personalData"];
  maxSkillBytes?: number;
  maxSupportFileBytes?: number;
  /** Host OS for `platforms` filtering; defaults to process.platform. */
  os?: string;
  logger?: Logger;
  now?: () => number;
  runShell?: InlineShellRunner;
  baseEnv?: Record<string, string | undefined>;
}

export type SkillTools = { ok: true; tools: AnyToolDefinition[]; catalog: SkillCatalog } | { ok: false; error: string };

/** Builds the skill tools around one shared catalog, so a skill_manage change is seen by the next skills_list. */
export function createSkillTools(options: SkillToolsOptions): SkillTools {
  const roots = options.roots.map((root) => path.resolve(root));
  if (roots.length === 0) return { ok: false, error: "skills need at least one skill folder" };
  const localSkillsDir = options.localSkillsDir === undefined ? undefined : path.resolve(options.localSkillsDir);
  if (localSkillsDir !== undefined && !roots.includes(localSkillsDir)) {
    return { ok: false, error: `the local skills folder ${localSkillsDir} is not one of the skill folders (${roots.join(", ")})` };
  }
  const catalog = new SkillCatalog({ roots, localSkillsDir, cacheDir: options.cacheDir, logger: options.logger, now: options.now });
  const env = { catalog, os: options.os };
  const tools = [
    skillsListTool(env),
    skillViewTool({
      ...env,
      allowInlineShell: options.allowInlineShell,
      runShell: options.runShell,
      baseEnv: options.baseEnv,
      maxSupportFileBytes: options.maxSupportFileBytes,
    }),
  ];
  if (localSkillsDir !== undefined) {
    const store = new LocalSkillStore({
      catalog,
      maxSkillBytes: options.maxSkillBytes,
      maxSupportFileBytes: options.maxSupportFileBytes,
      onSkillChanged: options.onSkillChanged,
      logger: options.logger,
    });
    tools.push(skillManageTool(store, { personalData: options.personalData }));
  }
  return { ok: true, tools, catalog };
}

export type SkillToolsRegistration = { ok: true; registered: string[]; catalog: SkillCatalog } | { ok: false; error: string };

export function registerSkillTools(registry: ToolRegistry, options: SkillToolsOptions): SkillToolsRegistration {
  const created = createSkillTools(options);
  if (!created.ok) return created;
  const registered: string[] = [];
  for (const tool of created.tools) {
    if (registry.has(tool.name)) continue;
    registry.register(tool);
    registered.push(tool.name);
  }
  return { ok: true, registered, catalog: created.catalog };
}

/** The official skills shipped in this repository's `skills/` folder. */
export function bundledSkillsDir(): string {
  return fileURLToPath(new URL("../../../../skills/", import.meta.url)).replace(/[\\/]$/, "");
}

export interface SkillLocations {
  roots: string[];
  localSkillsDir: string;
  cacheDir: string;
}

/** The standard layout: bundled skills, overridden by the agent's own in `$HERMES_HOME/skills`. */
export function defaultSkillLocations(hermesHome: string, bundledDir: string = bundledSkillsDir()): SkillLocations {
  const localSkillsDir = path.join(hermesHome, "skills");
  return { roots: [bundledDir, localSkillsDir], localSkillsDir, cacheDir: path.join(hermesHome, "cache") };
}
