import type { ChatType } from "../core/inbound.js";

/**
 * Lifecycle events handed to hooks. Every field is plain JSON so a handler may log, store or forward an event as is,
 * and so each handler can get its own copy (one hook must not be able to change what the next one sees).
 */
export interface HookEventBase {
  /** Milliseconds since the epoch. */
  timestamp: number;
}

/** Where a conversation event happened; each field is present when the stage that fires the event knows it. */
export interface ConversationFields {
  sessionKey?: string;
  platform?: string;
  chatId?: string;
  chatType?: ChatType;
  threadId?: string;
  userId?: string;
  userName?: string;
}

export interface GatewayStartupEvent extends HookEventBase {
  type: "gateway:startup";
  /** Platforms the gateway connected to, e.g. ["telegram", "discord"]. */
  platforms?: string[];
}

export interface GatewayShutdownEvent extends HookEventBase {
  type: "gateway:shutdown";
  /** Why the gateway stops, e.g. "SIGTERM". */
  reason?: string;
}

export interface MessageReceivedEvent extends HookEventBase, ConversationFields {
  type: "message:received";
  text: string;
  messageId?: string;
  attachmentCount?: number;
}

export interface MessageSentEvent extends HookEventBase, ConversationFields {
  type: "message:sent";
  text: string;
  messageId?: string;
  /** The inbound message this one answers. */
  replyToId?: string;
}

export interface SessionStartEvent extends HookEventBase, ConversationFields {
  type: "session:start";
}

export interface SessionEndEvent extends HookEventBase, ConversationFields {
  type: "session:end";
  reason?: string;
}

export interface SessionResetEvent extends HookEventBase, ConversationFields {
  type: "session:reset";
}

export interface SessionCompressEvent extends HookEventBase, ConversationFields {
  type: "session:compress";
  messagesBefore?: number;
  messagesAfter?: number;
  tokensBefore?: number;
  tokensAfter?: number;
}

/** Fields shared by the events of one agent run. */
export interface AgentRunFields extends ConversationFields {
  runId?: string;
  /** `provider/model-id` of the model answering. */
  model?: string;
}

export interface AgentStartEvent extends HookEventBase, AgentRunFields {
  type: "agent:start";
  /** The user's input for this run. */
  text?: string;
}

export interface AgentStepEvent extends HookEventBase, AgentRunFields {
  type: "agent:step";
  step: number;
  /** Assistant text of this step. */
  text?: string;
  toolCalls?: Array<{ id: string; name: string }>;
}

export interface AgentEndEvent extends HookEventBase, AgentRunFields {
  type: "agent:end";
  /** "completed" or the run's error code (MAX_ITERATIONS_EXCEEDED, API_ERROR, …). */
  stopReason: string;
  steps: number;
  durationMs?: number;
  /** What the person is shown. */
  text?: string;
}

export interface ToolBeforeEvent extends HookEventBase, AgentRunFields {
  type: "tool:before";
  step: number;
  toolName: string;
  toolCallId: string;
  /** The model's arguments, as parsed from its JSON. */
  arguments: Record<string, unknown>;
}

export interface ToolAfterEvent extends HookEventBase, AgentRunFields {
  type: "tool:after";
  step: number;
  toolName: string;
  toolCallId: string;
  arguments: Record<string, unknown>;
  /** Text content of the tool result, as the model sees it. */
  result: string;
  isError: boolean;
  durationMs: number;
  /** How the call ended: ok, error, blocked, timeout, … */
  status?: string;
}

export type CommandEventType = `command:${string}`;

export interface CommandEvent extends HookEventBase, ConversationFields {
  type: CommandEventType;
  /** The command name without the slash, e.g. "reset". */
  command: string;
  /** Everything after the command name, trimmed. */
  args: string;
}

export type HookEvent =
  | GatewayStartupEvent
  | GatewayShutdownEvent
  | MessageReceivedEvent
  | MessageSentEvent
  | SessionStartEvent
  | SessionEndEvent
  | SessionResetEvent
  | SessionCompressEvent
  | AgentStartEvent
  | AgentStepEvent
  | AgentEndEvent
  | ToolBeforeEvent
  | ToolAfterEvent
  | CommandEvent;

export type HookEventType = HookEvent["type"];

/** Every event type with a fixed name; `command:<name>` events come on top of these. */
export const FIXED_HOOK_EVENT_TYPES = [
  "gateway:startup",
  "gateway:shutdown",
  "message:received",
  "message:sent",
  "session:start",
  "session:end",
  "session:reset",
  "session:compress",
  "agent:start",
  "agent:step",
  "agent:end",
  "tool:before",
  "tool:after",
] as const satisfies readonly HookEventType[];

/** The only events whose handlers may stop what is happening, by returning `{ block: true, reason }`. */
export const BLOCKABLE_HOOK_EVENT_TYPES: ReadonlySet<string> = new Set(["message:received", "tool:before"]);

const FIXED_TYPES: ReadonlySet<string> = new Set(FIXED_HOOK_EVENT_TYPES);
const COMMAND_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function isCommandEventType(type: string): type is CommandEventType {
  return type.startsWith("command:") && COMMAND_NAME.test(type.slice("command:".length));
}

export function isHookEventType(type: string): type is HookEventType {
  return FIXED_TYPES.has(type) || isCommandEventType(type);
}

/** The families that `<family>:*` wildcards may name. */
export const HOOK_EVENT_FAMILIES: readonly string[] = ["gateway", "message", "session", "agent", "tool", "command"];

export type HookEmitResult = { blocked: false } | { blocked: true; reason: string; hook: string };
