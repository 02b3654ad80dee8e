import { callModel, type ModelBinding } from "../loop/model-call.js";
import { assistantText } from "../loop/result.js";
import { detectSecret } from "../memory/secret-guard.js";
import { silentLogger, type Logger } from "../observability/logger.js";
import { LocalSkillStore, type SkillChangeListener } from "../skills/local-skill-store.js";
import { detectPersonalData, type KnownPersonalData } from "../skills/personal-data.js";
import type { SkillCatalog } from "../skills/skill-cache.js";
import type { AuditResult } from "./audit-reply.js";
import { DEFAULT_REFLECTION_TIMEOUT_MS } from "./auditor.js";
import type { FrameworkDimension, ReflectionFramework } from "./framework.js";
import { SKILL_SYSTEM_PROMPT, skillPrompt } from "./review-prompts.js";
import { cleanGeneratedBody, fallbackSkillBody, generatedSkillDocument, generatedSkillName } from "./skill-template.js";

export const DEFAULT_SKILL_MAX_TOKENS = 1_500;
export const DEFAULT_MAX_SKILLS_PER_AUDIT = 2;

/** Where generated skills go: the catalog that knows every root, and the writer skill_manage uses. */
export interface ReflectionSkills {
  catalog: SkillCatalog;
  /** Defaults to a LocalSkillStore on `catalog`, so generated skills get skill_manage's validation and atomic write. */
  store?: Pick<LocalSkillStore, "create" | "patch">;
  /** Told about each created skill (used only when `store` is not given). */
  onSkillChanged?: SkillChangeListener;
}

export interface SkillGeneratorOptions extends ReflectionSkills {
  model: ModelBinding;
  logger?: Logger;
  maxTokens?: number;
  timeoutMs?: number;
  /** New skills at most per audit; the rest wait for a later review (skill changes should be rare and deliberate). */
  maxSkillsPerAudit?: number;
  now?: () => number;
}

export type SkillGenerationStatus = "created" | "exists" | "deferred" | "failed";

export interface SkillGenerationOutcome {
  dimensionId: string;
  name?: string;
  status: SkillGenerationStatus;
  /** Who wrote the body of a created skill. */
  source?: "model" | "template";
  error?: string;
}

export interface SkillGenerationCallOptions {
  signal?: AbortSignal;
  sessionId?: string;
  /** The reviewed conversation's names, ids and memory entries, none of which may reach a shared skill. */
  personalData?: KnownPersonalData;
}

/**
 * Writes one new local skill per missing dimension (seed 000 §6.2). A name taken in any skill root is left to the
 * SkillImprover, which patches agent-made skills and never touches official ones.
 */
export class SkillGenerator {
  private readonly catalog: SkillCatalog;
  private readonly store: Pick<LocalSkillStore, "create" | "patch">;
  private readonly model: ModelBinding;
  private readonly logger: Logger;
  private readonly maxTokens: number;
  private readonly timeoutMs: number;
  private readonly maxSkillsPerAudit: number;
  private readonly now: () => number;

  constructor(options: SkillGeneratorOptions) {
    this.catalog = options.catalog;
    this.logger = options.logger ?? silentLogger;
    this.store = options.store ?? new LocalSkillStore({ catalog: options.catalog, onSkillChanged: options.onSkillChanged, logger: this.logger });
    this.model = options.model;
    this.maxTokens = options.maxTokens ?? DEFAULT_SKILL_MAX_TOKENS;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_REFLECTION_TIMEOUT_MS;
    this.maxSkillsPerAudit = options.maxSkillsPerAudit ?? DEFAULT_MAX_SKILLS_PER_AUDIT;
    this.now = options.now ?? Date.now;
  }

  async generate(audit: AuditResult, framework: ReflectionFramework, options: SkillGenerationCallOptions = {}): Promise<SkillGenerationOutcome[]> {
    const outcomes: SkillGenerationOutcome[] = [];
    let created = 0;
    for (const dimension of audit.missing) {
      const name = generatedSkillName(framework.id, dimension.id);
      if (name === undefined) {
        outcomes.push({ dimensionId: dimension.id, status: "failed", error: "no valid skill name can be made from the framework and dimension ids" });
        continue;
      }
      if ((await this.catalog.index()).skills.has(name)) {
        outcomes.push({ dimensionId: dimension.id, name, status: "exists" });
        continue;
      }
      if (created >= this.maxSkillsPerAudit || options.signal?.aborted === true) {
        outcomes.push({ dimensionId: dimension.id, name, status: "deferred" });
        continue;
      }
      const outcome = await this.createSkill(name, framework, dimension, options);
      if (outcome.status === "created") created += 1;
      outcomes.push(outcome);
    }
    return outcomes;
  }

  private async createSkill(
    name: string,
    framework: ReflectionFramework,
    dimension: FrameworkDimension,
    options: SkillGenerationCallOptions,
  ): Promise<SkillGenerationOutcome> {
    const written = await this.writtenBody(framework, dimension, options);
    if (written !== undefined) {
      const change = await this.store.create(name, generatedSkillDocument(name, framework, dimension, written));
      if (change.ok) return { dimensionId: dimension.id, name, status: "created", source: "model" };
      this.logger.info("generated skill refused; using the template instead", { skill: name, error: change.error });
    }
    const change = await this.store.create(name, generatedSkillDocument(name, framework, dimension, fallbackSkillBody(framework, dimension)));
    if (change.ok) return { dimensionId: dimension.id, name, status: "created", source: "template" };
    return { dimensionId: dimension.id, name, status: "failed", error: change.error };
  }

  /** The model's body for the skill; undefined when the call fails or the reply is unusable or unsafe to keep. */
  private async writtenBody(framework: ReflectionFramework, dimension: FrameworkDimension, options: SkillGenerationCallOptions): Promise<string | undefined> {
    const { message } = await callModel(
      { ...this.model, maxTokens: this.maxTokens },
      { systemPrompt: SKILL_SYSTEM_PROMPT, messages: [{ role: "user", content: skillPrompt(framework, dimension), timestamp: this.now() }] },
      { signal: options.signal ?? new AbortController().signal, sessionId: options.sessionId, timeoutMs: this.timeoutMs },
    );
    if (message.stopReason === "error" || message.stopReason === "aborted") {
      this.logger.info("skill generation call failed; using the template", { dimension: dimension.id, error: message.errorMessage });
      return undefined;
    }
    // A reply cut off by the token limit would leave a skill that stops mid-step.
    const body = message.stopReason === "length" ? undefined : cleanGeneratedBody(assistantText(message));
    if (body === undefined) {
      this.logger.info("skill generation reply unusable; using the template", { dimension: dimension.id });
      return undefined;
    }
    const secret = detectSecret(body);
    if (secret !== undefined) {
      this.logger.warn("generated skill looked like it held a secret; using the template", { dimension: dimension.id, kind: secret });
      return undefined;
    }
    // Skills are shared by everyone; the template is written from the framework alone, so it carries nobody's data.
    const personal = detectPersonalData(body, options.personalData);
    if (personal !== undefined) {
      this.logger.warn("generated skill carried personal data; using the template", { dimension: dimension.id, kind: personal.kind });
      return undefined;
    }
    return body;
  }
}
