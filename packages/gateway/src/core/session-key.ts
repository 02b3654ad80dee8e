import type { NewSession } from "@hermes/store";
import type { InboundMessage } from "./inbound.js";

/** How group conversations map to sessions (both are operator settings). */
export interface SessionScopeSettings {
  /** Outside threads: each user has their own session ("per_user", default) or the whole chat shares one. */
  groupSessions: "per_user" | "shared";
  /** Inside a thread/topic: one shared session ("shared", default) or one per user. */
  threadSessions: "shared" | "per_user";
}

export const DEFAULT_SESSION_SCOPE: SessionScopeSettings = { groupSessions: "per_user", threadSessions: "shared" };

/**
 * The session key contract of DESIGN.md: `agent:main:<platform>:<chat_type>:<chat_id>[:<thread_id>][:<user_id>]`.
 * A DM is keyed by its chat alone; groups and channels add the thread and/or the user as the settings say.
 */
export function sessionKeyFor(message: InboundMessage, scope: SessionScopeSettings = DEFAULT_SESSION_SCOPE): string {
  const base = ["agent", "main", message.platform, message.chat.type, message.chat.id];
  if (message.chat.type === "dm") return base.map(keyPart).join(":");
  const parts = [...base];
  if (message.threadId) {
    parts.push(message.threadId);
    if (scope.threadSessions === "per_user") parts.push(message.user.id);
  } else if (scope.groupSessions === "per_user") {
    parts.push(message.user.id);
  }
  return parts.map(keyPart).join(":");
}

/** True when several people share the session, so each message is prefixed with its sender. */
export function isSharedSession(message: InboundMessage, scope: SessionScopeSettings = DEFAULT_SESSION_SCOPE): boolean {
  if (message.chat.type === "dm") return false;
  return message.threadId ? scope.threadSessions === "shared" : scope.groupSessions === "shared";
}

// Ids come from platforms; a colon inside one would make keys ambiguous.
function keyPart(part: string): string {
  return part.replace(/:/g, "%3A");
}

/** The session a message belongs to, as the store creates it (titled after the message that opened it). */
export function newSessionFor(message: InboundMessage, key: string): NewSession {
  return {
    key,
    platform: message.platform,
    chatId: message.chat.id,
    chatType: message.chat.type,
    threadId: message.threadId,
    userId: message.user.id,
    title: message.text.slice(0, 80) || undefined,
  };
}
