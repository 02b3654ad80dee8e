import type { Static, TSchema } from "@sinclair/typebox";
import type { Logger } from "../observability/logger.js";
import type { KnownPersonalData } from "../skills/personal-data.js";

/**
 * How a tool may share a batch with other calls from the same model response.
 * - parallel-safe: no side effects that other calls could observe (reads, network lookups).
 * - path-scoped: touches only the paths it declares; runs alongside calls whose paths do not overlap.
 * - never-parallel: always runs alone, in call order.
 */
export type ConcurrencyClass = "parallel-safe" | "path-scoped" | "never-parallel";

/** Who a run is for, as the embedding application (the gateway) knows it; tools scope their data with it. */
export interface RunCaller {
  platform?: string;
  userId?: string;
  chatId?: string;
  /** The chat's type and thread, so a tool that posts into the chat later (cronjob) knows where. */
  chatType?: "dm" | "group" | "channel";
  threadId?: string;
  sessionKey?: string;
  /**
   * The names, ids and memory entries of the people in the run's conversation, which skill_manage keeps out of the
   * skills everyone shares. Read when a call needs it, so memory saved earlier in the same run counts too.
   */
  personalData?: () => Promise<KnownPersonalData>;
}

/** What a tool handler receives besides its validated arguments. */
export interface ToolContext {
  /** Aborted when the run is cancelled or the call's timeout passes; long work must honour it. */
  signal: AbortSignal;
  toolCallId: string;
  sessionId: string;
  logger: Logger;
  /** Present when the run was started with a caller (e.g. session_search limits itself to this user's sessions). */
  caller?: RunCaller;
}

/** Outcome of a tool call. Expected failures are values (`isError: true`), not exceptions. */
export interface ToolResult {
  content: string;
  isError?: boolean;
  /** Structured data for callbacks, traces and tests; never sent to the model. */
  details?: Record<string, unknown>;
  /** Pictures sent to the model after `content` (e.g. an MCP tool's image content); outside the character budget. */
  images?: ToolImage[];
}

/** A base64-encoded picture in a tool result. */
export interface ToolImage {
  data: string;
  mimeType: string;
}

export interface ToolDefinition<S extends TSchema = TSchema> {
  name: string;
  description: string;
  parameters: S;
  concurrency: ConcurrencyClass;
  /** For path-scoped tools: absolute paths the call touches. Throwing or returning nothing means "unknown". */
  paths?: (args: Static<S>) => string[];
  /** Availability check; false or a throw makes the tool invisible to the model. */
  isAvailable?: () => boolean | Promise<boolean>;
  /** Per-call timeout in milliseconds (registry default when absent). */
  timeoutMs?: number;
  /** Results longer than this (characters) are saved to a file and replaced by a preview. */
  maxResultChars?: number;
  /** Usage guidance placed in the system prompt's tool-guidance layer while the tool is available. */
  guidance?: string;
  handler: (args: Static<S>, context: ToolContext) => Promise<ToolResult>;
}

/** A definition whose schema type has been erased so definitions of different tools fit one collection. */
// The handler's parameter is widened deliberately: arguments are validated against `parameters` before the call.
export type AnyToolDefinition = ToolDefinition<TSchema>;

export function defineTool<S extends TSchema>(definition: ToolDefinition<S>): AnyToolDefinition {
  return definition as unknown as AnyToolDefinition;
}
