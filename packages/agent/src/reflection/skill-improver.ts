import { promises as fs } from "node:fs";
import type { Message } from "@mariozechner/pi-ai";
import { toolCallsById } from "../context/prune-tool-results.js";
import { renderTranscript } from "../context/render-transcript.js";
import { callModel, type ModelBinding } from "../loop/model-call.js";
import { assistantText } from "../loop/result.js";
import { silentLogger, type Logger } from "../observability/logger.js";
import type { LocalSkillStore } from "../skills/local-skill-store.js";
import { detectPersonalData, type KnownPersonalData } from "../skills/personal-data.js";
import type { SkillCatalog } from "../skills/skill-cache.js";
import { DEFAULT_REFLECTION_TIMEOUT_MS } from "./auditor.js";
import { jsonObjectsIn } from "./json-extract.js";
import { SKILL_PATCH_SYSTEM_PROMPT, skillPatchPrompt } from "./review-prompts.js";

export const DEFAULT_SKILL_PATCH_TRANSCRIPT_TOKENS = 4_000;
export const DEFAULT_SKILL_PATCH_MAX_TOKENS = 1_200;
export const DEFAULT_MAX_SKILLS_IMPROVED = 2;
const MAX_PATCHES_PER_SKILL = 2;

export interface SkillImproverOptions {
  model: ModelBinding;
  catalog: SkillCatalog;
  store: Pick<LocalSkillStore, "patch">;
  logger?: Logger;
  /** Agent-made skills considered per review (one model call each). */
  maxSkills?: number;
  transcriptTokens?: number;
  maxTokens?: number;
  timeoutMs?: number;
  now?: () => number;
}

export interface SkillPatchOutcome {
  name: string;
  status: "patched" | "unchanged" | "refused" | "failed";
  /** Patches applied. */
  patches: number;
  error?: string;
}

export interface SkillImproveInput {
  messages: readonly Message[];
  /** Skills the review thinks could be improved (e.g. the generated skill of a dimension an answer missed). */
  candidates?: readonly string[];
  personalData?: KnownPersonalData;
  signal?: AbortSignal;
  sessionId?: string;
}

/** Skills the conversation loaded with skill_view, in the order they were first loaded. */
export function skillsViewed(messages: readonly Message[]): string[] {
  const names: string[] = [];
  for (const call of toolCallsById(messages).values()) {
    const name: unknown = call.name === "skill_view" ? call.arguments?.name : undefined;
    if (typeof name === "string" && !names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * The skill review's second half: improves existing agent-made (local) skills with small `patch` edits when the
 * conversation shows how. Official skills are never touched, and a patch carrying personal data is refused.
 */
export class SkillImprover {
  private readonly options: SkillImproverOptions;
  private readonly logger: Logger;

  constructor(options: SkillImproverOptions) {
    this.options = options;
    this.logger = options.logger ?? silentLogger;
  }

  async improve(input: SkillImproveInput): Promise<SkillPatchOutcome[]> {
    const index = await this.options.catalog.index();
    const wanted = [...skillsViewed(input.messages), ...(input.candidates ?? [])];
    const local = [...new Set(wanted)].filter((name) => index.skills.get(name)?.source === "local");
    const outcomes: SkillPatchOutcome[] = [];
    for (const name of local.slice(0, this.options.maxSkills ?? DEFAULT_MAX_SKILLS_IMPROVED)) {
      if (input.signal?.aborted === true) break;
      const entry = index.skills.get(name);
      if (entry !== undefined) outcomes.push(await this.improveOne(name, entry.skillFile, input));
    }
    return outcomes;
  }

  private async improveOne(name: string, skillFile: string, input: SkillImproveInput): Promise<SkillPatchOutcome> {
    const text = await fs.readFile(skillFile, "utf8").catch(() => undefined);
    if (text === undefined) return { name, status: "failed", patches: 0, error: "SKILL.md could not be read" };
    const transcript = renderTranscript(input.messages, toolCallsById(input.messages), this.options.transcriptTokens ?? DEFAULT_SKILL_PATCH_TRANSCRIPT_TOKENS);
    const { message } = await callModel(
      { ...this.options.model, maxTokens: this.options.maxTokens ?? DEFAULT_SKILL_PATCH_MAX_TOKENS },
      { systemPrompt: SKILL_PATCH_SYSTEM_PROMPT, messages: [{ role: "user", content: skillPatchPrompt(name, text, transcript), timestamp: (this.options.now ?? Date.now)() }] },
      { signal: input.signal ?? new AbortController().signal, sessionId: input.sessionId, timeoutMs: this.options.timeoutMs ?? DEFAULT_REFLECTION_TIMEOUT_MS },
    );
    if (message.stopReason !== "stop") return { name, status: "failed", patches: 0, error: `the patch call ended with ${message.stopReason}` };
    const patches = patchesIn(assistantText(message));
    if (patches === undefined) return { name, status: "failed", patches: 0, error: "the reply has no patches list" };
    let applied = 0;
    const errors: string[] = [];
    for (const patch of patches.slice(0, MAX_PATCHES_PER_SKILL)) {
      const finding = detectPersonalData(patch.newString, input.personalData);
      if (finding !== undefined) {
        this.logger.warn("skill patch refused: it carried personal data", { skill: name, kind: finding.kind });
        return { name, status: applied > 0 ? "patched" : "refused", patches: applied, error: `a patch carried personal data (${finding.kind})` };
      }
      const change = await this.options.store.patch(name, patch.oldString, patch.newString);
      if (change.ok) applied += 1;
      else errors.push(change.error);
    }
    if (applied > 0) this.logger.info("reflection patched a skill", { skill: name, patches: applied });
    if (errors.length > 0 && applied === 0) return { name, status: "failed", patches: 0, error: errors.join("; ") };
    return { name, status: applied > 0 ? "patched" : "unchanged", patches: applied };
  }
}

function patchesIn(reply: string): Array<{ oldString: string; newString: string }> | undefined {
  const object = jsonObjectsIn(reply).find((candidate) => Array.isArray(candidate.patches));
  if (object === undefined) return undefined;
  const patches: Array<{ oldString: string; newString: string }> = [];
  for (const item of object.patches as unknown[]) {
    if (typeof item !== "object" || item === null) continue;
    const record = item as Record<string, unknown>;
    if (typeof record.old_string === "string" && record.old_string.trim() !== "" && typeof record.new_string === "string") {
      patches.push({ oldString: record.old_string, newString: record.new_string });
    }
  }
  return patches;
}
