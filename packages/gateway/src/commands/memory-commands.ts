import type { MemoryFileState, MemoryScope } from "@hermes/agent";
import { groupChatsOf } from "../agent/person-chats.js";
import type { CommandContext, CommandDefinition } from "./types.js";

const NO_MEMORY = "Memory is not available in this bot.";
const NOT_YOURS =
  "This chat's memory (MEMORY.md and USER.md) is kept for the whole chat and shared by everyone in it, so one member cannot erase it; the bot's operator can. Nothing was erased.";

/** /memory and /forget: people see and erase what the bot keeps about them (their memory scope). */
export const memoryCommands: CommandDefinition[] = [
  {
    name: "memory",
    usage: "/memory",
    description: "show what I remember about you (your memory entries)",
    run: async (context) => {
      if (!context.memory) return NO_MEMORY;
      const scope = context.memory.scopeOf(context.message);
      const contents = await context.memory.read(scope);
      // A chat-mode group's USER.md is about everyone in it, not the caller alone.
      const aboutUser = scope.ownDirs.includes(scope.userDir) ? "About you" : "About the people in this chat";
      const sections = [section("Notes", contents.memory, scope), section(aboutUser, contents.user, scope)];
      if (sections.every((text) => text === undefined)) return "I have nothing saved in memory for you. Send /forget to learn how erasing works.";
      const erase = scope.ownDirs.length === 0 ? "These belong to the whole chat; only the bot's operator can erase them." : "Send /forget to erase your memory.";
      return [...sections.filter((text): text is string => text !== undefined), "", erase].join("\n");
    },
  },
  {
    name: "forget",
    usage: "/forget [confirm]",
    description: "erase what I remember about you (asks for /forget confirm)",
    run: async (context) => {
      if (!context.memory) return NO_MEMORY;
      const scope = context.memory.scopeOf(context.message);
      if (scope.ownDirs.length === 0) return NOT_YOURS;
      if (context.args.trim().toLowerCase() !== "confirm") return explainForget(scope, context);
      // Another process (a restart, a worker) may have served the person's shared chats: the store says which.
      const { platform, user } = context.message;
      await context.memory.forget(scope, { platform, userId: user.id, groupChatIds: await groupChatsOf(context.store, platform, user.id) });
      return "Done: your memory files are erased (and whatever the memory provider kept for you). Your conversations themselves are kept; send /new to start a fresh one.";
    },
  },
];

function section(title: string, state: MemoryFileState | undefined, scope: MemoryScope): string | undefined {
  if (!state || state.entries.length === 0) return undefined;
  const shared = !scope.ownDirs.includes(state.target === "memory" ? scope.memoryDir : scope.userDir);
  const heading = shared ? `${title} (shared by this chat, ${state.fileName}):` : `${title} (${state.fileName}):`;
  return [heading, ...state.entries.map((entry) => `§ ${entry}`)].join("\n");
}

function explainForget(scope: MemoryScope, context: CommandContext): string {
  const sharedNotes = !scope.ownDirs.includes(scope.memoryDir);
  const what = scope.id === "shared"
    ? "This erases the bot's memory files (MEMORY.md and USER.md, the same for everyone using this bot)"
    : scope.id.startsWith("chat:")
      ? "This erases this chat's memory files (MEMORY.md and USER.md)"
      : "This erases everything I keep about you in memory (your MEMORY.md and USER.md)";
  const chatNote = sharedNotes && context.sharedSession ? " The notes this group shares are kept." : "";
  return `${what}, and what the memory provider keeps for it. It cannot be undone.${chatNote} Send /forget confirm to go ahead.`;
}
