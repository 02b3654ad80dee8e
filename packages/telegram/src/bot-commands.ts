import type { BotCommand } from "grammy/types";

const NAME = /^[a-z0-9_]{1,32}$/;
const MAX_DESCRIPTION = 256;

/**
 * The gateway's chat commands as Telegram's command menu wants them: lowercase names of up to 32 characters and
 * descriptions of 1–256; anything else would make setMyCommands refuse the whole list.
 */
export function telegramCommands(commands: ReadonlyArray<{ name: string; description: string }>): BotCommand[] {
  const menu: BotCommand[] = [];
  for (const command of commands) {
    const name = command.name.toLowerCase();
    if (!NAME.test(name) || menu.some((entry) => entry.command === name)) continue;
    const description = command.description.trim() || name;
    menu.push({ command: name, description: description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION - 1)}…` : description });
  }
  return menu;
}
