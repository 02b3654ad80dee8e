import type { MemoryScope, MemoryScopeContents } from "@hermes/agent";
import type { PersonInChats } from "../agent/memory-scopes.js";
import type { ApprovalsPort } from "../approval/approval-types.js";
import type { InboundMessage } from "../core/inbound.js";
import type { GatewayStore, HookPort, RunQueuePort } from "../core/ports.js";
import type { WithSessionLock } from "../runtime/command-session-lock.js";

/** Everything a command may use. Commands answer with text (sent as a notice) and never run the agent themselves. */
export interface CommandContext {
  message: InboundMessage;
  sessionKey: string;
  args: string;
  store: GatewayStore;
  queue: RunQueuePort;
  hooks: HookPort;
  now: () => number;
  /** `provider/model-id` (or custom id) the bot uses by default, and the fallback if any. */
  models: { primary: string; fallback?: string };
  /** Checks that a model name can be used (known and with a key); undefined when fine, else the reason. */
  checkModel(name: string): string | undefined;
  /** Routes text as if the user had sent it again (used by /retry). */
  resubmit(text: string): Promise<void>;
  /**
   * Runs `work` holding the session's lock, the one runs take: a command that changes the conversation never cuts
   * into a turn being written. Waits briefly for a running answer; `{ ok: false, reason: "busy" }` if it goes on.
   */
  withSessionLock: WithSessionLock;
  /** Compresses the session's transcript now (call it under withSessionLock); returns a sentence for the user. */
  compress(sessionKey: string): Promise<string>;
  /** Sends another message to the same chat later (for work that continues after the command's first answer). */
  followUp(text: string): Promise<void>;
  /** How the current user is authorized, for /whoami. */
  authorization: "allowlist" | "paired" | "console";
  /** Whether several people share this session (their messages carry a [sender] prefix). */
  sharedSession: boolean;
  /** The caller's memory (HERMES_MEMORY_SCOPE), for /memory and /forget; absent when the bot has none. */
  memory?: MemoryCommandsPort;
  /** HERMES_DAILY_BUDGET_USD, for /usage; absent when there is none. */
  dailyBudgetUsd?: number;
  /** The approval requests, for /approve and /deny; absent when HERMES_APPROVAL=none. */
  approvals?: ApprovalsPort;
  /**
   * For a button press (`message.action`): replaces the pressed message with `text` and no buttons; false when it
   * could not (the platform cannot edit, or refused), and the command then answers with a message instead.
   */
  editPressedMessage?(text: string): Promise<boolean>;
}

/** What /memory, /forget and /new need: whose scope a message is in, erasing one, telling memory a session ended. */
export interface MemoryCommandsPort {
  scopeOf(message: InboundMessage): MemoryScope;
  /** The scope's MEMORY.md and USER.md as stored (files, or the database with HERMES_DATABASE_URL). */
  read(scope: MemoryScope): Promise<MemoryScopeContents>;
  /** Erases the scope; `person` names the group chats whose scopes of theirs the provider forgets too. */
  forget(scope: MemoryScope, person?: PersonInChats): Promise<void>;
  endSession(sessionId: string, endedBy?: MemoryScope): Promise<void>;
}

export interface CommandDefinition {
  name: string;
  usage: string;
  description: string;
  run(context: CommandContext): Promise<string>;
}
