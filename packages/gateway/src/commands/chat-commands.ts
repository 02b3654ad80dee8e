import type { CommandDefinition } from "./types.js";

/** Per-chat settings that people in a group can change themselves. */
export const chatCommands: CommandDefinition[] = [
  {
    name: "respond",
    usage: "/respond [mentions | all]",
    description: "in a group: answer only when addressed (mentions) or every message (all)",
    run: async (context) => {
      const { message, store } = context;
      if (message.chat.type === "dm") return "In a direct chat I always answer; /respond is for groups.";
      const wanted = context.args.trim().toLowerCase();
      const current = (await store.chatSettings.get(message.platform, message.chat.id))?.mentionMode ?? "mention";
      if (wanted === "") {
        return current === "all"
          ? "I answer every message in this chat. Send /respond mentions to make me answer only when addressed."
          : "I answer here only when mentioned, replied to, or given a command. Send /respond all to make me answer everything.";
      }
      if (wanted !== "mentions" && wanted !== "all") return "Use /respond mentions or /respond all.";
      await store.chatSettings.set(message.platform, message.chat.id, { mentionMode: wanted === "all" ? "all" : "mention" });
      return wanted === "all" ? "OK: I'll answer every message in this chat." : "OK: I'll answer here only when addressed.";
    },
  },
];
