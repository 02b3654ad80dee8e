import type { Message } from "@mariozechner/pi-ai";
import type { Logger } from "../observability/logger.js";
import { context as contexts, trace, type Link, type Span, type Tracer } from "@opentelemetry/api";
import { inChildSpan, markFailed, recordedTraceId, type SpanScope } from "../observability/tracer.js";
import { SPAN_NAMES } from "../observability/tracer-names.js";
import type { AuditResult } from "./audit-reply.js";
import type { Auditor } from "./auditor.js";
import type { ReflectionFramework } from "./framework.js";
import { userRequestText } from "../context/compression-note.js";
import type { KnownPersonalData } from "../skills/personal-data.js";
import type { LearningRecorder, LearningRecordOutcome } from "./learning-recorder.js";
import type { CurationOutcome, MemoryCurator } from "./memory-curator.js";
import type { ReflectionMemory } from "./memory-port.js";
import { LEARNING_MARKER } from "./learning-entry.js";
import { rankFrameworks } from "./relevance.js";
import type { SkillGenerationOutcome, SkillGenerator } from "./skill-generator.js";
import type { SkillImprover, SkillPatchOutcome } from "./skill-improver.js";

/** memory: learnings and curation of the scope's memory; skill: new skills and patches to agent-made ones; combined: both. */
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
  /** Names and ids of the people in the conversation (the scope's memory entries are added from `memory`). */
  personalData?: KnownPersonalData;
}

export interface ReviewDeps {
  frameworks: readonly ReflectionFramework[];
  auditor: Pick<Auditor, "audit">;
  skillGenerator: Pick<SkillGenerator, "generate">;
  skillImprover: Pick<SkillImprover, "improve">;
  learningRecorder: Pick<LearningRecorder, "record">;
  memoryCurator: Pick<MemoryCurator, "curate">;
  memory: Pick<ReflectionMemory, "read">;
  tracer: Tracer;
  logger: Logger;
  maxAuditsPerReview: number;
  signal: AbortSignal;
}

export interface ReviewReport {
  mode: ReviewMode;
  sessionId?: string;
  /** The review's own trace, when tracing is set up. */
  traceId?: string;
  /** Ids of the frameworks audited: the best-ranked ones, up to the per-review cap. */
  audited: string[];
  audits: AuditResult[];
  auditErrors: Array<{ frameworkId: string; error: string }>;
  skills: SkillGenerationOutcome[];
  skillPatches: SkillPatchOutcome[];
  learnings?: LearningRecordOutcome;
  curation?: CurationOutcome;
}

/**
 * One review: audit the best-ranked frameworks, then skills (new ones, patches to agent-made ones) and/or memory
 * (learnings, curation), each step a span of one trace. Every review does its mode's work whatever the
 * conversation's language: frameworks add what to look for, they never decide whether to look.
 */
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
  const report: ReviewReport = {
    mode: input.mode,
    sessionId: input.sessionId,
    traceId: recordedTraceId(root),
    audited: [],
    audits: [],
    auditErrors: [],
    skills: [],
    skillPatches: [],
  };
  try {
    const ranked = rankFrameworks(deps.frameworks, input.messages).slice(0, Math.max(0, deps.maxAuditsPerReview));
    report.audited = ranked.map((entry) => entry.framework.id);
    root.setAttribute("hermes.reflection.frameworks_audited", ranked.length);
    const audited: Array<{ framework: ReflectionFramework; audit: AuditResult }> = [];
    for (const { framework, relevance } of ranked) {
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
    if (deps.signal.aborted) return report;

    if (input.mode !== "memory") {
      const personalData = await knownPersonalData(input, deps.memory);
      await inSpan(scope, REFLECTION_SPAN_NAMES.skillGeneration, {}, async (span) => {
        const outcomes: SkillGenerationOutcome[] = [];
        for (const { framework, audit } of audited) {
          outcomes.push(...(await deps.skillGenerator.generate(audit, framework, { signal: deps.signal, sessionId: input.sessionId, personalData })));
        }
        report.skills = outcomes;
        const existing = outcomes.filter((outcome) => outcome.status === "exists").flatMap((outcome) => (outcome.name === undefined ? [] : [outcome.name]));
        report.skillPatches = await deps.skillImprover.improve({ messages: input.messages, candidates: existing, personalData, signal: deps.signal, sessionId: input.sessionId });
        span.setAttributes(countBy(outcomes.map((outcome) => `hermes.reflection.skills.${outcome.status}`)));
        span.setAttributes(countBy(report.skillPatches.map((outcome) => `hermes.reflection.skill_patches.${outcome.status}`)));
        const created = outcomes.filter((outcome) => outcome.status === "created").map((outcome) => outcome.name);
        if (created.length > 0) deps.logger.info("reflection created skills", { skills: created });
      });
    }
    if (input.mode !== "skill" && !deps.signal.aborted) {
      report.learnings = await inSpan(scope, REFLECTION_SPAN_NAMES.learningRecord, {}, async (span) => {
        const outcome = await deps.learningRecorder.record(report.audits);
        span.setAttributes({
          "hermes.reflection.learnings.recorded": outcome.recorded.length,
          "hermes.reflection.learnings.unconfirmed": outcome.unconfirmed.length,
          "hermes.reflection.learnings.duplicates": outcome.duplicates,
          "hermes.reflection.learnings.secrets": outcome.secrets,
          "hermes.reflection.learnings.over_limit": outcome.overLimit,
        });
        if (outcome.error !== undefined) markFailed(span, "learning_record_failed", outcome.error);
        const curation = await deps.memoryCurator.curate(input.messages, { signal: deps.signal, sessionId: input.sessionId });
        report.curation = curation;
        span.setAttributes({
          "hermes.reflection.memory.merged": curation.merged.length,
          "hermes.reflection.memory.dropped": curation.dropped.length,
          "hermes.reflection.memory.refused": curation.refused.length,
        });
        if (curation.error !== undefined) deps.logger.info("memory curation failed", { error: curation.error });
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

// In a shared session the gateway prefixes each person's message with "[their name] ".
const SENDER_PREFIX = /^\[([^\]\n]{1,64})\] /;

/** Who the conversation is about: what the caller said, the senders named in shared sessions, the scope's memory. */
async function knownPersonalData(input: ReviewInput, memory: Pick<ReflectionMemory, "read">): Promise<KnownPersonalData> {
  const known = input.personalData;
  const senders = input.messages.flatMap((message) => {
    const name = SENDER_PREFIX.exec(userRequestText(message) ?? "")?.[1]?.trim();
    return name === undefined || name === "" ? [] : [name];
  });
  const entries: string[] = [];
  for (const target of ["memory", "user"] as const) {
    const read = await memory.read(target);
    // The reviewer's own [learning] entries are general lessons, which a skill may well repeat.
    if (read.ok) entries.push(...read.state.entries.filter((entry) => !entry.startsWith(LEARNING_MARKER)));
  }
  return { ...known, names: [...(known?.names ?? []), ...new Set(senders)], memoryEntries: [...(known?.memoryEntries ?? []), ...entries] };
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
