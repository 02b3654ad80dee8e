import type { Message } from "@mariozechner/pi-ai";
import type { ModelBinding } from "../loop/model-call.js";
import type { Logger } from "../observability/logger.js";
import { LocalSkillStore } from "../skills/local-skill-store.js";
import type { KnownPersonalData } from "../skills/personal-data.js";
import type { Tracer } from "@opentelemetry/api";
import { defaultAgentTracer } from "../observability/tracer.js";
import { Auditor, type AuditorOptions } from "./auditor.js";
import type { ReflectionFramework } from "./framework.js";
import { LearningRecorder, type LearningRecorderOptions } from "./learning-recorder.js";
import { MemoryCurator, type MemoryCuratorOptions } from "./memory-curator.js";
import type { MemoryChangeListener, ReflectionMemory } from "./memory-port.js";
import { REVIEW_MODES, runReview, type ReviewInput, type ReviewMode, type ReviewReport } from "./review-run.js";
import { SkillGenerator, type ReflectionSkills, type SkillGeneratorOptions } from "./skill-generator.js";
import { SkillImprover, type SkillImproverOptions } from "./skill-improver.js";

export const DEFAULT_TURN_NUDGE_INTERVAL = 10;
export const DEFAULT_ITERATION_NUDGE_INTERVAL = 10;
export const DEFAULT_MAX_AUDITS_PER_REVIEW = 2;

export type ReviewTask = () => void;

export interface BackgroundReviewerOptions {
  /** The model that audits and writes skills (a cheaper one than the chat model is fine). */
  model: ModelBinding;
  /** The reviewed conversation's own memory (its scope); reviews read and write nothing else. */
  memory: ReflectionMemory;
  /** Told after a review changed that memory (e.g. to mark the scope's prompt snapshot stale). */
  onMemoryChanged?: MemoryChangeListener;
  skills: ReflectionSkills;
  frameworks: readonly ReflectionFramework[];
  /** Review after this many turns; 0 turns the trigger off. */
  turnNudgeInterval?: number;
  /** Review after this many loop iterations (model calls) across runs; 0 turns the trigger off. */
  iterationNudgeInterval?: number;
  /** An OpenTelemetry tracer; default the global provider's "hermes-agent" tracer. */
  tracer?: Tracer;
  logger: Logger;
  /** Runs a review later, off the reply's path; default `setTimeout(task, 0)`. */
  schedule?: (task: ReviewTask) => void;
  /** The rotation of review modes; default memory → skill → combined. */
  modes?: readonly ReviewMode[];
  /** Frameworks audited per review, the best-ranked first (one model call each). */
  maxAuditsPerReview?: number;
  audit?: Omit<AuditorOptions, "model" | "now">;
  skillGeneration?: Omit<SkillGeneratorOptions, "model" | "logger" | "now" | keyof ReflectionSkills>;
  learning?: Omit<LearningRecorderOptions, "memory" | "logger" | "now">;
  curation?: Omit<MemoryCuratorOptions, "model" | "memory" | "logger" | "now">;
  skillImprovement?: Omit<SkillImproverOptions, "model" | "catalog" | "store" | "logger" | "now">;
  now?: () => number;
  /** Called with what each finished review did (for metrics or tests); a throw is logged. */
  onReviewComplete?: (report: ReviewReport) => void;
}

export interface CompletedRun {
  /** The conversation as it stands after the run (the run's `history`). */
  messages: readonly Message[];
  /** Loop iterations the run took (`HermesAgentResult.steps`). */
  steps: number;
  sessionId?: string;
  /** Names and ids of the people in the conversation, kept out of shared skills. */
  personalData?: KnownPersonalData;
}

/**
 * Runs reflection outside the agent loop (seed 000 §6.4): counts turns and iterations, and when either reaches its
 * interval starts a review on the scheduler, rotating memory → skill → combined. Every conversation is reviewed
 * when its interval comes round, in any language. The caller never waits for it and never sees its errors; at most
 * one review runs at a time.
 */
export class BackgroundReviewer {
  private readonly logger: Logger;
  private readonly tracer: Tracer;
  private readonly schedule: (task: ReviewTask) => void;
  private readonly turnInterval: number;
  private readonly iterationInterval: number;
  private readonly frameworks: readonly ReflectionFramework[];
  private readonly auditor: Auditor;
  private readonly skillGenerator: SkillGenerator;
  private readonly learningRecorder: LearningRecorder;
  private readonly memoryCurator: MemoryCurator;
  private readonly skillImprover: SkillImprover;
  private readonly memory: ReflectionMemory;
  private readonly onMemoryChanged: MemoryChangeListener | undefined;
  private readonly maxAuditsPerReview: number;
  private readonly onReviewComplete: ((report: ReviewReport) => void) | undefined;
  private readonly modes: readonly ReviewMode[];
  private turnsSinceReview = 0;
  private iterationsSinceReview = 0;
  private reviewsStarted = 0;
  private inFlight: { done: Promise<void>; controller: AbortController } | undefined;
  private closed = false;

  constructor(options: BackgroundReviewerOptions) {
    this.logger = options.logger;
    this.tracer = options.tracer ?? defaultAgentTracer();
    this.schedule = options.schedule ?? ((task) => void setTimeout(task, 0));
    this.turnInterval = interval(options.turnNudgeInterval, DEFAULT_TURN_NUDGE_INTERVAL);
    this.iterationInterval = interval(options.iterationNudgeInterval, DEFAULT_ITERATION_NUDGE_INTERVAL);
    this.frameworks = options.frameworks;
    this.memory = options.memory;
    this.onMemoryChanged = options.onMemoryChanged;
    this.maxAuditsPerReview = options.maxAuditsPerReview ?? DEFAULT_MAX_AUDITS_PER_REVIEW;
    this.onReviewComplete = options.onReviewComplete;
    this.modes = options.modes !== undefined && options.modes.length > 0 ? [...options.modes] : REVIEW_MODES;
    this.auditor = new Auditor({ ...options.audit, model: options.model, now: options.now });
    // One store for new skills and patches, so both get skill_manage's validation and change notifications.
    const store = options.skills.store ?? new LocalSkillStore({ catalog: options.skills.catalog, onSkillChanged: options.skills.onSkillChanged, logger: this.logger });
    const common = { model: options.model, logger: this.logger, now: options.now };
    this.skillGenerator = new SkillGenerator({ ...options.skillGeneration, catalog: options.skills.catalog, store, ...common });
    this.skillImprover = new SkillImprover({ ...options.skillImprovement, catalog: options.skills.catalog, store, ...common });
    this.learningRecorder = new LearningRecorder({ ...options.learning, memory: options.memory, logger: this.logger, now: options.now });
    this.memoryCurator = new MemoryCurator({ ...options.curation, memory: options.memory, ...common });
  }

  /** Whether a review is scheduled or running. */
  get reviewing(): boolean {
    return this.inFlight !== undefined;
  }

  onTurnStart(turn: number): void {
    this.turnsSinceReview += 1;
    this.logger.debug("background reviewer counted a turn", { turn, turnsSinceReview: this.turnsSinceReview });
  }

  /** Call after each run with its transcript; returns at once, starting a review in the background when one is due. */
  afterRun(run: CompletedRun): void {
    try {
      if (this.closed) return;
      if (Number.isFinite(run.steps) && run.steps > 0) this.iterationsSinceReview += Math.floor(run.steps);
      const byTurns = this.turnInterval > 0 && this.turnsSinceReview >= this.turnInterval;
      const byIterations = this.iterationInterval > 0 && this.iterationsSinceReview >= this.iterationInterval;
      if (!byTurns && !byIterations) return;
      if (this.inFlight !== undefined) {
        // The counters stay as they are, so the next run after this review ends starts the one that was due.
        this.logger.info("background review skipped: another review is still running", { sessionId: run.sessionId });
        return;
      }
      this.turnsSinceReview = 0;
      this.iterationsSinceReview = 0;
      const mode = this.modes[this.reviewsStarted % this.modes.length] ?? "combined";
      this.reviewsStarted += 1;
      this.launch(mode, run, byTurns ? "turns" : "iterations");
    } catch (error) {
      this.logger.error("background reviewer failed to start a review", { error: describe(error) });
    }
  }

  /** Resolves once no review is scheduled or running (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight !== undefined) await this.inFlight.done;
  }

  /** Stops starting reviews, cancels the running one's model calls and waits for it to wind down. */
  async shutdown(): Promise<void> {
    this.closed = true;
    this.inFlight?.controller.abort();
    await this.idle();
  }

  private launch(mode: ReviewMode, run: CompletedRun, trigger: string): void {
    const messages = [...run.messages];
    const sessionId = run.sessionId;
    const controller = new AbortController();
    let settle: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const flight = { done, controller };
    this.inFlight = flight;
    const finish = (): void => {
      if (this.inFlight === flight) this.inFlight = undefined;
      settle();
    };
    this.logger.info("background review started", { mode, trigger, sessionId });
    try {
      this.schedule(() => {
        this.review({ mode, messages, sessionId, personalData: run.personalData }, controller.signal).finally(finish);
      });
    } catch (error) {
      this.logger.error("background review could not be scheduled", { mode, error: describe(error) });
      finish();
    }
  }

  private async review(input: ReviewInput, signal: AbortSignal): Promise<void> {
    const { mode, sessionId } = input;
    try {
      const report = await runReview(input, {
        frameworks: this.frameworks,
        auditor: this.auditor,
        skillGenerator: this.skillGenerator,
        skillImprover: this.skillImprover,
        learningRecorder: this.learningRecorder,
        memoryCurator: this.memoryCurator,
        memory: this.memory,
        tracer: this.tracer,
        logger: this.logger,
        maxAuditsPerReview: this.maxAuditsPerReview,
        signal,
      });
      const memoryChanges = (report.learnings?.recorded.length ?? 0) + (report.curation?.merged.length ?? 0) + (report.curation?.dropped.length ?? 0);
      this.logger.info("background review finished", {
        mode,
        sessionId,
        audited: report.audited,
        audits: report.audits.length,
        auditErrors: report.auditErrors.length,
        skillsCreated: report.skills.filter((outcome) => outcome.status === "created").length,
        skillsPatched: report.skillPatches.filter((outcome) => outcome.status === "patched").length,
        learningsRecorded: report.learnings?.recorded.length ?? 0,
        memoryMerged: report.curation?.merged.length ?? 0,
        memoryDropped: report.curation?.dropped.length ?? 0,
      });
      if (memoryChanges > 0) this.memoryChanged();
      this.notify(report);
    } catch (error) {
      this.logger.error("background review failed", { mode, sessionId, error: describe(error) });
    }
  }

  private memoryChanged(): void {
    try {
      this.onMemoryChanged?.();
    } catch (error) {
      this.logger.warn("onMemoryChanged listener failed", { error: describe(error) });
    }
  }

  private notify(report: ReviewReport): void {
    try {
      this.onReviewComplete?.(report);
    } catch (error) {
      this.logger.warn("onReviewComplete listener failed", { error: describe(error) });
    }
  }
}

function interval(value: number | undefined, fallback: number): number {
  if (value === undefined || Number.isNaN(value)) return fallback;
  if (value === Number.POSITIVE_INFINITY) return 0;
  return Math.max(0, Math.floor(value));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
