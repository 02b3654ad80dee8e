import type { MemoryManager } from "@hermes/agent";
import type { Message } from "@mariozechner/pi-ai";
import type { InboundMessage } from "./inbound.js";

/** The people of a conversation as the gateway knows them: display names and platform ids. */
export interface ConversationPeople {
  names: string[];
  ids: string[];
}

/** ConversationPeople plus the texts of the scope's memory entries. */
export interface RunPersonalData extends ConversationPeople {
  memoryEntries: string[];
}

// In a shared session each person's message reaches the agent as "[their name] text" (attachments/attachment-content.ts).
const SENDER_PREFIX = /^\[([^\]\n]{1,64})\] /;
// The reviewer's own "[learning]" entries are general lessons, which a skill may well repeat.
const LEARNING_ENTRY = "[learning]";

/** The sender of a message: their name and ids (the chat's too, which in a DM is the person's). */
export function senderOf(message: InboundMessage): ConversationPeople {
  const name = message.user.name?.trim();
  return { names: name ? [name] : [], ids: [...new Set([message.user.id, message.chat.id])] };
}

/** The sender, and everyone a shared session's transcript names in its "[Name] " prefixes. */
export function peopleOf(message: InboundMessage, history: readonly Message[]): ConversationPeople {
  const sender = senderOf(message);
  const named = history.flatMap((entry) => {
    const name = entry.role === "user" ? SENDER_PREFIX.exec(firstText(entry.content))?.[1]?.trim() : undefined;
    return name ? [name] : [];
  });
  return { names: [...new Set([...sender.names, ...named])], ids: sender.ids };
}

/**
 * What a run must keep out of shared skills (RunCaller.personalData): the conversation's people and the entries of
 * the run's memory scope, read when asked so an entry saved earlier in the run is included.
 */
export function runPersonalData(people: ConversationPeople, memory?: Pick<MemoryManager, "read">): () => Promise<RunPersonalData> {
  return async () => {
    const memoryEntries: string[] = [];
    for (const target of ["memory", "user"] as const) {
      const read = await memory?.read(target);
      if (read?.ok) memoryEntries.push(...read.state.entries.filter((entry) => !entry.startsWith(LEARNING_ENTRY)));
    }
    return { ...people, memoryEntries };
  };
}

function firstText(content: Extract<Message, { role: "user" }>["content"]): string {
  if (typeof content === "string") return content;
  return content.find((part) => part.type === "text")?.text ?? "";
}
