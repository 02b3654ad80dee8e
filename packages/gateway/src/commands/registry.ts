import { approvalCommands } from "../approval/approval-commands.js";
import { cronCommands } from "../cron/cron-commands.js";
import { chatCommands } from "./chat-commands.js";
import { infoCommands } from "./info-commands.js";
import { memoryCommands } from "./memory-commands.js";
import { sessionCommands } from "./session-commands.js";
import type { CommandDefinition } from "./types.js";

const helpCommand: CommandDefinition = {
  name: "help",
  usage: "/help",
  description: "list the commands",
  run: async () => helpText(),
};

export const COMMANDS: readonly CommandDefinition[] = [...sessionCommands, ...infoCommands, ...chatCommands, ...memoryCommands, ...approvalCommands, ...cronCommands, helpCommand];

const BY_NAME = new Map(COMMANDS.map((command) => [command.name, command]));

export function findCommand(name: string): CommandDefinition | undefined {
  return BY_NAME.get(name);
}

export function helpText(): string {
  const order = ["new", "reset", "stop", "retry", "undo", "compress", "status", "usage", "model", "respond", "memory", "forget", "approve", "deny", "cron", "whoami", "help"];
  const lines = order
    .map((name) => BY_NAME.get(name))
    .filter((command): command is CommandDefinition => command !== undefined)
    .map((command) => `${command.usage} — ${command.description}`);
  return ["Commands:", ...lines, "", "Anything else you send goes to the assistant."].join("\n");
}

export function unknownCommandText(name: string): string {
  return `I don't know the command /${name}. Send /help to see what I can do.`;
}
