export {
  FrameworkDimensionSchema,
  ReflectionFrameworkSchema,
  bundledFrameworksDir,
  loadFrameworkFile,
  loadFrameworks,
  parseFramework,
  type FrameworkCheck,
  type FrameworkDimension,
  type LoadFrameworksOptions,
  type ReflectionFramework,
} from "./framework.js";
export { checkRelevance, rankFrameworks, type Relevance } from "./relevance.js";
export { parseAuditReply, type AuditReply, type AuditResult } from "./audit-reply.js";
export { Auditor, type AuditCallOptions, type AuditorOptions } from "./auditor.js";
export {
  SkillGenerator,
  type ReflectionSkills,
  type SkillGenerationOutcome,
  type SkillGenerationStatus,
  type SkillGeneratorOptions,
} from "./skill-generator.js";
export { generatedSkillName } from "./skill-template.js";
export { LearningRecorder, type LearningRecorderOptions, type LearningRecordOutcome } from "./learning-recorder.js";
export { MemoryCurator, type CurationOutcome, type MemoryCuratorOptions } from "./memory-curator.js";
export type { MemoryChangeListener, ReflectionMemory } from "./memory-port.js";
export { SkillImprover, type SkillImproverOptions, type SkillPatchOutcome } from "./skill-improver.js";
export { REFLECTION_SPAN_NAMES, REFLECTION_TRACE_NAME, REVIEW_MODES, type ReviewMode, type ReviewReport } from "./review-run.js";
export {
  BackgroundReviewer,
  DEFAULT_ITERATION_NUDGE_INTERVAL,
  DEFAULT_TURN_NUDGE_INTERVAL,
  type BackgroundReviewerOptions,
  type CompletedRun,
  type ReviewTask,
} from "./background-reviewer.js";
