import type { Message } from "@mariozechner/pi-ai";
import { toolCallsById } from "../context/prune-tool-results.js";
import { renderTranscript } from "../context/render-transcript.js";
import { callModel, type ModelBinding } from "../loop/model-call.js";
import { assistantText } from "../loop/result.js";
import { parseAuditReply, type AuditReply } from "./audit-reply.js";
import type { ReflectionFramework } from "./framework.js";
import { AUDIT_SYSTEM_PROMPT, auditPrompt } from "./review-prompts.js";

export const DEFAULT_AUDIT_TRANSCRIPT_TOKENS = 6_000;
export const DEFAULT_AUDIT_MAX_TOKENS = 1_200;
export const DEFAULT_REFLECTION_TIMEOUT_MS = 60_000;

export interface AuditorOptions {
  model: ModelBinding;
  /** Rough token budget of the transcript sent to the auditor; the oldest entries are dropped first. */
  transcriptTokens?: number;
  /** Limit on the audit reply. */
  maxTokens?: number;
  timeoutMs?: number;
  now?: () => number;
}

export interface AuditCallOptions {
  signal?: AbortSignal;
  sessionId?: string;
}

/** One model call per framework: the trimmed transcript and the dimensions in, a covered/missing verdict out. */
export class Auditor {
  private readonly model: ModelBinding;
  private readonly transcriptTokens: number;
  private readonly maxTokens: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(options: AuditorOptions) {
    this.model = options.model;
    this.transcriptTokens = options.transcriptTokens ?? DEFAULT_AUDIT_TRANSCRIPT_TOKENS;
    this.maxTokens = options.maxTokens ?? DEFAULT_AUDIT_MAX_TOKENS;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_REFLECTION_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
  }

  async audit(framework: ReflectionFramework, messages: readonly Message[], options: AuditCallOptions = {}): Promise<AuditReply> {
    const transcript = renderTranscript(messages, toolCallsById(messages), this.transcriptTokens);
    if (transcript.trim() === "") return { ok: false, error: "the conversation has nothing to audit" };
    const { message } = await callModel(
      { ...this.model, maxTokens: this.maxTokens },
      { systemPrompt: AUDIT_SYSTEM_PROMPT, messages: [{ role: "user", content: auditPrompt(framework, transcript), timestamp: this.now() }] },
      { signal: options.signal ?? new AbortController().signal, sessionId: options.sessionId, timeoutMs: this.timeoutMs },
    );
    if (message.stopReason === "error" || message.stopReason === "aborted") {
      return { ok: false, error: `the audit call ${message.stopReason === "aborted" ? "was aborted" : "failed"}: ${message.errorMessage ?? "no detail"}` };
    }
    const reply = assistantText(message);
    if (reply === "") return { ok: false, error: "the audit reply is empty" };
    return parseAuditReply(reply, framework);
  }
}
