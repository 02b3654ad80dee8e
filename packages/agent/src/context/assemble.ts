import type { Message, UserMessage } from "@mariozechner/pi-ai";
import { repairHistory, type RepairNote } from "../history/repair.js";

/**
 * Phase 4: head + the note standing in for the middle + tail, then the protocol repair of seed 002 §6.3. Summarising
 * keeps meaning but can still break the wire format (a call whose result went into the summary), and the provider
 * would reject the next request; the repair answers every call and drops orphaned results.
 */
export function assembleCompressed(
  input: { head: readonly Message[]; note: UserMessage; tail: readonly Message[] },
  now: () => number,
): { messages: Message[]; repairs: RepairNote[] } {
  const repaired = repairHistory([...input.head, input.note, ...input.tail], now);
  return { messages: repaired.messages, repairs: repaired.notes };
}
