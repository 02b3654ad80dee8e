import type { Message } from "@mariozechner/pi-ai";
import type { Logger } from "../observability/logger.js";
import type { Span, Trace, Tracer } from "../observability/tracer.js";
import type { AuditResult } from "./audit-reply.js";
import type { Auditor } from "./auditor.js";
import type { ReflectionFramework } from "./framework.js";
import type { LearningRecorder, LearningRecordOutcome } from "./learning-recorder.js";
import { relevantFrameworks, type RelevanceOptions } from "./relevance.js";
import type { SkillGenerationOutcome, SkillGenerator } from "./skill-generator.js";

/** memory: record learnings only; skill: generate skills only; combined: both (seed 000 §6.4). */
export type ReviewMode = "memory" | "skill" | "combined";
export const REVIEW_MODES: readonly ReviewMode[] = ["memory", "skill", "combined"];

export const REFLECTION_TRACE_NAME = "background_reflection";
export const REFLECTION_SPAN_NAMES = { audit: "audit", skillGeneration: "skill_generation", learningRecord: "learning_record" } as const;

export interface ReviewInput {
  mode: ReviewMode;
  messages: readonly Message[];
  sessionId?: string;
}

export interface ReviewDeps {
  frameworks: readonly ReflectionFramework[];
  auditor: Pick<Auditor, "audit">;
  skillGenerator: Pick<SkillGenerator, "generate">;
  learningRecorder: Pick<LearningRecorder, "record">;
  tracer: Tracer;
  logger: Logger;
  relevance?: RelevanceOptions;
  maxAuditsPerReview: number;
  signal: AbortSignal;
}

export interface ReviewReport {
  mode: ReviewMode;
  sessionId?: string;
  traceId: string;
  /** Ids of the frameworks found relevant (and audited, up to the per-review cap). */
  relevant: string[];
  audits: AuditResult[];
  auditErrors: Array<{ frameworkId: string; error: string }>;
  skills: SkillGenerationOutcome[];
  learnings?: LearningRecordOutcome;
}

/** One review: relevance → audit per framework → skills and/or learnings, each step a span of one trace. */
export async function runReview(input: ReviewInput, deps: ReviewDeps): Promise<ReviewReport> {
  const trace = deps.tracer.startTrace(REFLECTION_TRACE_NAME, { mode: input.mode, session_id: input.sessionId ?? "", messages: input.messages.length });
  const report: ReviewReport = { mode: input.mode, sessionId: input.sessionId, traceId: trace.traceId, relevant: [], audits: [], auditErrors: [], skills: [] };
  try {
    const relevant = relevantFrameworks(deps.frameworks, input.messages, deps.relevance).slice(0, Math.max(0, deps.maxAuditsPerReview));
    report.relevant = relevant.map((entry) => entry.framework.id);
    trace.root.setAttribute("frameworks_relevant", relevant.length);
    const audited: Array<{ framework: ReflectionFramework; audit: AuditResult }> = [];
    for (const { framework, relevance } of relevant) {
      if (deps.signal.aborted) break;
      const audit = await inSpan(trace, REFLECTION_SPAN_NAMES.audit, { framework: framework.id, keywords: relevance.matched.join(", ") }, async (span) => {
        const reply = await deps.auditor.audit(framework, input.messages, { signal: deps.signal, sessionId: input.sessionId });
        if (!reply.ok) {
          span.recordError(reply.error);
          report.auditErrors.push({ frameworkId: framework.id, error: reply.error });
          deps.logger.info("reflection audit failed", { framework: framework.id, error: reply.error });
          return undefined;
        }
        span.setAttributes({ covered: reply.result.covered.length, missing: reply.result.missing.length, learnings: reply.result.learnings.length });
        return reply.result;
      });
      if (audit !== undefined) audited.push({ framework, audit });
    }
    report.audits = audited.map((entry) => entry.audit);
    if (audited.length === 0 || deps.signal.aborted) return report;

    if (input.mode !== "memory") {
      report.skills = await inSpan(trace, REFLECTION_SPAN_NAMES.skillGeneration, {}, async (span) => {
        const outcomes: SkillGenerationOutcome[] = [];
        for (const { framework, audit } of audited) {
          outcomes.push(...(await deps.skillGenerator.generate(audit, framework, { signal: deps.signal, sessionId: input.sessionId })));
        }
        span.setAttributes(countBy(outcomes.map((outcome) => outcome.status)));
        const created = outcomes.filter((outcome) => outcome.status === "created").map((outcome) => outcome.name);
        if (created.length > 0) deps.logger.info("reflection created skills", { skills: created });
        return outcomes;
      });
    }
    if (input.mode !== "skill") {
      report.learnings = await inSpan(trace, REFLECTION_SPAN_NAMES.learningRecord, {}, async (span) => {
        const outcome = await deps.learningRecorder.record(report.audits, `background-review:${input.mode}`);
        span.setAttributes({
          recorded: outcome.recorded.length,
          unconfirmed: outcome.unconfirmed.length,
          duplicates: outcome.duplicates,
          secrets: outcome.secrets,
          over_limit: outcome.overLimit,
        });
        if (outcome.error !== undefined) span.recordError(outcome.error);
        return outcome;
      });
    }
    return report;
  } catch (error) {
    trace.root.recordError(error);
    throw error;
  } finally {
    trace.end();
  }
}

async function inSpan<T>(trace: Trace, name: string, attributes: Record<string, string>, work: (span: Span) => Promise<T>): Promise<T> {
  const span = trace.startSpan(name, attributes);
  try {
    return await work(span);
  } catch (error) {
    span.recordError(error);
    throw error;
  } finally {
    span.end();
  }
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
