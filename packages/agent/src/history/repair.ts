import type { AssistantMessage, Message, ToolCall, ToolResultMessage } from "@mariozechner/pi-ai";
import { repairArguments } from "./json-args.js";

export type RepairKind =
  | "failed_assistant_removed"
  | "orphan_result_removed"
  | "missing_result_stubbed"
  | "duplicate_id_renamed"
  | "arguments_repaired"
  | "arguments_unrepairable";

export interface RepairNote {
  kind: RepairKind;
  toolCallId?: string;
  detail?: string;
}

export const MISSING_RESULT_TEXT = "[No result recorded: this call was interrupted before it finished.]";

interface PendingCall {
  originalId: string;
  id: string;
  name: string;
  answered: boolean;
}

/**
 * Makes a transcript valid for the tool-calling protocol before it is sent (seed 002 §2.4, §9.2): every tool result
 * answers a call of the assistant message before it, every call gets exactly one result, call ids are unique, and
 * arguments are objects. Returns new message objects; the input is not modified.
 */
export function repairHistory(
  messages: readonly Message[],
  now: () => number = Date.now,
): { messages: Message[]; notes: RepairNote[] } {
  const out: Message[] = [];
  const notes: RepairNote[] = [];
  const usedIds = new Set<string>();
  let pending: PendingCall[] = [];

  const flushPending = (): void => {
    for (const call of pending) {
      if (call.answered) continue;
      out.push(stubResult(call, now()));
      notes.push({ kind: "missing_result_stubbed", toolCallId: call.id });
    }
    pending = [];
  };

  for (const message of messages) {
    if (message.role === "assistant") {
      flushPending();
      if (message.stopReason === "error" || message.stopReason === "aborted") {
        notes.push({ kind: "failed_assistant_removed", detail: message.errorMessage?.slice(0, 120) });
        continue;
      }
      const repaired = repairAssistant(message, usedIds, notes);
      pending = repaired.calls;
      out.push(repaired.message);
      continue;
    }
    if (message.role === "toolResult") {
      const call = pending.find((c) => !c.answered && c.originalId === message.toolCallId);
      if (!call) {
        notes.push({ kind: "orphan_result_removed", toolCallId: message.toolCallId });
        continue;
      }
      call.answered = true;
      out.push(call.id === message.toolCallId ? message : { ...message, toolCallId: call.id });
      continue;
    }
    flushPending();
    out.push(message);
  }
  flushPending();
  return { messages: out, notes };
}

function repairAssistant(
  message: AssistantMessage,
  usedIds: Set<string>,
  notes: RepairNote[],
): { message: AssistantMessage; calls: PendingCall[] } {
  const calls: PendingCall[] = [];
  let changed = false;
  const content = message.content.map((block) => {
    if (block.type !== "toolCall") return block;
    let next: ToolCall = block;
    let id = block.id;
    if (!id || usedIds.has(id)) {
      id = uniqueId(block.id || "call", usedIds);
      next = { ...next, id };
      notes.push({ kind: "duplicate_id_renamed", toolCallId: id, detail: `was "${block.id}"` });
    }
    const args = repairArguments(block.arguments as unknown);
    if (!args.ok) {
      next = { ...next, arguments: {} };
      notes.push({ kind: "arguments_unrepairable", toolCallId: id, detail: args.reason });
    } else if (args.repaired) {
      next = { ...next, arguments: args.value };
      notes.push({ kind: "arguments_repaired", toolCallId: id });
    }
    usedIds.add(id);
    calls.push({ originalId: block.id, id, name: block.name, answered: false });
    if (next !== block) changed = true;
    return next;
  });
  return { message: changed ? { ...message, content } : message, calls };
}

function uniqueId(base: string, used: Set<string>): string {
  for (let n = 2; ; n += 1) {
    const candidate = `${base}_${n}`;
    if (!used.has(candidate)) return candidate;
  }
}

function stubResult(call: PendingCall, timestamp: number): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text: MISSING_RESULT_TEXT }],
    isError: true,
    timestamp,
  };
}
