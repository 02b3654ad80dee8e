import type { FrameworkDimension, ReflectionFramework } from "./framework.js";
import { jsonObjectsIn } from "./json-extract.js";

/** How one conversation measured up against one framework (seed 000 §6.1). */
export interface AuditResult {
  frameworkId: string;
  covered: FrameworkDimension[];
  missing: FrameworkDimension[];
  /** Short, reusable lessons the auditor drew from the conversation (unfiltered; the recorder vets them). */
  learnings: string[];
  /** The auditor's one-line reason per dimension id, for logs and debugging. */
  evidence: Record<string, string>;
}

export type AuditReply = { ok: true; result: AuditResult } | { ok: false; error: string };

export const MAX_AUDIT_LEARNINGS = 5;
const MAX_LEARNING_CHARS = 400;
const MAX_EVIDENCE_CHARS = 300;

/**
 * Reads the auditor's reply defensively: JSON may be fenced or wrapped in prose, unknown dimension ids and odd
 * statuses are ignored, the first verdict for a dimension wins. A reply with no usable verdict is an error value.
 * Dimensions the reply does not mention are left out of both lists rather than guessed.
 */
export function parseAuditReply(reply: string, framework: ReflectionFramework): AuditReply {
  const objects = jsonObjectsIn(reply);
  if (objects.length === 0) return { ok: false, error: "the audit reply contains no JSON object" };
  const withDimensions = objects.find((object) => Array.isArray(object.dimensions));
  if (withDimensions === undefined) return { ok: false, error: 'the audit reply has no "dimensions" list' };

  const byId = new Map(framework.dimensions.map((dimension) => [dimension.id, dimension]));
  const verdicts = new Map<string, { status: "covered" | "missing"; evidence: string }>();
  for (const entry of withDimensions.dimensions as unknown[]) {
    if (typeof entry !== "object" || entry === null) continue;
    const record = entry as Record<string, unknown>;
    const id = typeof record.id === "string" ? record.id.trim() : "";
    const status = typeof record.status === "string" ? record.status.trim().toLowerCase() : "";
    if (!byId.has(id) || verdicts.has(id) || (status !== "covered" && status !== "missing")) continue;
    const evidence = typeof record.evidence === "string" ? clip(record.evidence.trim(), MAX_EVIDENCE_CHARS) : "";
    verdicts.set(id, { status, evidence });
  }
  if (verdicts.size === 0) return { ok: false, error: "the audit reply has no verdict for any dimension of the framework" };

  const covered: FrameworkDimension[] = [];
  const missing: FrameworkDimension[] = [];
  const evidence: Record<string, string> = {};
  for (const dimension of framework.dimensions) {
    const verdict = verdicts.get(dimension.id);
    if (verdict === undefined) continue;
    (verdict.status === "covered" ? covered : missing).push(dimension);
    if (verdict.evidence !== "") evidence[dimension.id] = verdict.evidence;
  }
  return { ok: true, result: { frameworkId: framework.id, covered, missing, learnings: learningsOf(withDimensions.learnings), evidence } };
}

function learningsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const learnings: string[] = [];
  for (const item of value) {
    if (typeof item !== "string") continue;
    const text = item.replace(/\s+/g, " ").trim();
    if (text === "" || text.length > MAX_LEARNING_CHARS) continue;
    learnings.push(text);
    if (learnings.length === MAX_AUDIT_LEARNINGS) break;
  }
  return learnings;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
