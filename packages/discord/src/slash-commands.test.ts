import { describe, expect, it } from "vitest";
import { channelTargetOf, discordSlashCommands, interactionIdOf, slashCommandMessage } from "./slash-commands.js";

describe("discordSlashCommands", () => {
  it("gives commands with arguments one optional string option and leaves out names Discord refuses", () => {
    const commands = discordSlashCommands([
      { name: "status", usage: "/status", description: "show this conversation's state" },
      { name: "model", usage: "/model [provider/model-id | default]", description: "x".repeat(150) },
      { name: "Bad Name", usage: "/Bad Name", description: "nope" },
      { name: "status", usage: "/status", description: "a duplicate" },
    ]);
    expect(commands.map((c) => c.name)).toEqual(["status", "model"]);
    expect(commands[0]?.options).toBeUndefined();
    expect(commands[1]?.description).toHaveLength(100);
    expect(commands[1]?.options).toEqual([{ type: 3, name: "args", description: "[provider/model-id | default]", required: false }]);
  });
});

describe("slashCommandMessage", () => {
  const base = { interactionId: "42", name: "model", args: "openai/gpt", user: { id: "u1", name: "Ada" }, channelId: "c1", timestamp: 5 };

  it("puts a DM command in the DM's session with the interaction marker as its thread", () => {
    const message = slashCommandMessage(base);
    expect(message).toMatchObject({ chat: { id: "c1", type: "dm" }, threadId: "interaction:42", messageId: "interaction:42", text: "/model openai/gpt", mentionedBot: true });
    expect(interactionIdOf({ chatId: "c1", threadId: "interaction:42" })).toBe("42");
    expect(channelTargetOf({ chatId: "c1", threadId: "interaction:42" })).toEqual({ chatId: "c1" });
  });

  it("keeps a thread's session for a command typed in a guild thread, marking the reply-to id", () => {
    const message = slashCommandMessage({ ...base, args: "", guild: { id: "g1", name: "Lab" }, channelId: "t1", channelName: "ideas", parentChannelId: "c9" });
    expect(message).toMatchObject({ chat: { id: "c9", type: "group" }, threadId: "t1", replyToId: "interaction:42", text: "/model" });
    const target = { chatId: "c9", threadId: "t1", replyToMessageId: "interaction:42" };
    expect(interactionIdOf(target)).toBe("42");
    expect(channelTargetOf(target)).toEqual({ chatId: "c9", threadId: "t1" });
    expect(interactionIdOf({ chatId: "c9", replyToMessageId: "123" })).toBeUndefined();
  });
});
