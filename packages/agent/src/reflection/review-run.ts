import type { Message } from "@mariozechner/pi-ai";
import type { Logger } from "../observability/logger.js";
import { context as contexts, trace, type Link, type Span, type Tracer } from "@opentelemetry/api";
import { inChildSpan, markFailed, recordedTraceId, type SpanScope } from "../observability/tracer.js";
import { SPAN_NAMES } from "../observability/tracer-names.js";
import type { AuditResult } from "./audit-reply.js";
import type { Auditor } from "./auditor.js";
import type { ReflectionFramework } from "./framework.js";
import type { LearningRecorder, LearningRecordOutcome } from "./learning-recorder.js";
import { relevantFrameworks, type RelevanceOptions } from "./relevance.js";
import type { SkillGenerationOutcome, SkillGenerator } from "./skill-generator.js";

/** memory: record learnings only; skill: generate skills only; combined: both (seed 000 §6.4). */
export type ReviewMode = "memory" | "skill" | "combined";
export const REVIEW_MODES: readonly ReviewMode[] = ["memory", "skill", "combined"];

export const REFLECTION_TRACE_NAME = SPAN_NAMES.reflection;
export const REFLECTION_SPAN_NAMES = {
  audit: SPAN_NAMES.reflectionAudit,
  skillGeneration: SPAN_NAMES.reflectionSkillGeneration,
  learningRecord: SPAN_NAMES.reflectionLearningRecord,
} as const;

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
  /** The review's own trace, when tracing is set up. */
  traceId?: string;
  /** Ids of the frameworks found relevant (and audited, up to the per-review cap). */
  relevant: string[];
  audits: AuditResult[];
  auditErrors: Array<{ frameworkId: string; error: string }>;
  skills: SkillGenerationOutcome[];
  learnings?: LearningRecordOutcome;
}

/** One review: relevance → audit per framework → skills and/or learnings, each step a span of one trace. */
export async function runReview(input: ReviewInput, deps: ReviewDeps): Promise<ReviewReport> {
  // A review happens after the reply, off its path: it gets a trace of its own, linked to the run that started it.
  const startedBy = trace.getActiveSpan()?.spanContext();
  const links: Link[] = startedBy && trace.isSpanContextValid(startedBy) ? [{ context: startedBy }] : [];
  const root = deps.tracer.startSpan(REFLECTION_TRACE_NAME, {
    root: true,
    links,
    attributes: { "hermes.reflection.mode": input.mode, "hermes.reflection.messages": input.messages.length, ...(input.sessionId ? { "gen_ai.conversation.id": input.sessionId } : {}) },
  });
  const scope: SpanScope = { tracer: deps.tracer, context: trace.setSpan(contexts.active(), root) };
  const report: ReviewReport = { mode: input.mode, sessionId: input.sessionId, traceId: recordedTraceId(root), relevant: [], audits: [], auditErrors: [], skills: [] };
  try {
    const relevant = relevantFrameworks(deps.frameworks, input.messages, deps.relevance).slice(0, Math.max(0, deps.maxAuditsPerReview));
    report.relevant = relevant.map((entry) => entry.framework.id);
    root.setAttribute("hermes.reflection.frameworks_relevant", relevant.length);
    const audited: Array<{ framework: ReflectionFramework; audit: AuditResult }> = [];
    for (const { framework, relevance } of relevant) {
      if (deps.signal.aborted) break;
      const attributes = { "hermes.reflection.framework": framework.id, "hermes.reflection.keywords": relevance.matched.join(", ") };
      const audit = await inSpan(scope, REFLECTION_SPAN_NAMES.audit, attributes, async (span) => {
        const reply = await deps.auditor.audit(framework, input.messages, { signal: deps.signal, sessionId: input.sessionId });
        if (!reply.ok) {
          markFailed(span, "audit_failed", reply.error);
          report.auditErrors.push({ frameworkId: framework.id, error: reply.error });
          deps.logger.info("reflection audit failed", { framework: framework.id, error: reply.error });
          return undefined;
        }
        span.setAttributes({
          "hermes.reflection.covered": reply.result.covered.length,
          "hermes.reflection.missing": reply.result.missing.length,
          "hermes.reflection.learnings": reply.result.learnings.length,
        });
        return reply.result;
      });
      if (audit !== undefined) audited.push({ framework, audit });
    }
    report.audits = audited.map((entry) => entry.audit);
    if (audited.length === 0 || deps.signal.aborted) return report;

    if (input.mode !== "memory") {
      report.skills = await inSpan(scope, REFLECTION_SPAN_NAMES.skillGeneration, {}, async (span) => {
        const outcomes: SkillGenerationOutcome[] = [];
        for (const { framework, audit } of audited) {
          outcomes.push(...(await deps.skillGenerator.generate(audit, framework, { signal: deps.signal, sessionId: input.sessionId })));
        }
        span.setAttributes(countBy(outcomes.map((outcome) => `hermes.reflection.skills.${outcome.status}`)));
        const created = outcomes.filter((outcome) => outcome.status === "created").map((outcome) => outcome.name);
        if (created.length > 0) deps.logger.info("reflection created skills", { skills: created });
        return outcomes;
      });
    }
    if (input.mode !== "skill") {
      report.learnings = await inSpan(scope, REFLECTION_SPAN_NAMES.learningRecord, {}, async (span) => {
        const outcome = await deps.learningRecorder.record(report.audits, `background-review:${input.mode}`);
        span.setAttributes({
          "hermes.reflection.learnings.recorded": outcome.recorded.length,
          "hermes.reflection.learnings.unconfirmed": outcome.unconfirmed.length,
          "hermes.reflection.learnings.duplicates": outcome.duplicates,
          "hermes.reflection.learnings.secrets": outcome.secrets,
          "hermes.reflection.learnings.over_limit": outcome.overLimit,
        });
        if (outcome.error !== undefined) markFailed(span, "learning_record_failed", outcome.error);
        return outcome;
      });
    }
    return report;
  } catch (error) {
    markFailed(root, error instanceof Error ? error.name : "exception", error);
    throw error;
  } finally {
    root.end();
  }
}

function inSpan<T>(scope: SpanScope, name: string, attributes: Record<string, string>, work: (span: Span) => Promise<T>): Promise<T> {
  return inChildSpan(scope, name, { attributes }, (span) => work(span));
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
