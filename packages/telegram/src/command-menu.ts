import { setMaxListeners } from "node:events";
import type { Logger } from "@hermes/agent";
import type { BotCommand, BotCommandScope, LanguageCode } from "grammy/types";
import { describeApiFailure } from "./api-errors.js";
import type { BotApi } from "./bot-api.js";
import { telegramCommands } from "./bot-commands.js";
import { COMMAND_TRANSLATIONS, type CommandTranslations } from "./command-translations.js";

/** One setMyCommands call: the menu for a scope (none: the default one) and a language (none: every other one). */
export interface CommandMenu {
  scope?: BotCommandScope;
  languageCode?: LanguageCode;
  commands: BotCommand[];
}

/** Commands that only mean something in a group; a private chat's menu leaves them out. */
const GROUP_ONLY: ReadonlySet<string> = new Set(["respond"]);

const PRIVATE_CHATS: BotCommandScope = { type: "all_private_chats" };
const GROUP_CHATS: BotCommandScope = { type: "all_group_chats" };

type Command = { name: string; description: string };

/**
 * The menus to register: the default list (every command), private chats without the group-only commands, group
 * chats with all of them, and both again in each translated language. Telegram picks the most specific menu for the
 * chat and the user's app language, falling back to the untranslated one.
 */
export function commandMenus(commands: readonly Command[], translations: CommandTranslations = COMMAND_TRANSLATIONS): CommandMenu[] {
  const scoped = (menu: BotCommand[], languageCode?: LanguageCode): CommandMenu[] => {
    const language = languageCode === undefined ? {} : { languageCode };
    return [
      { scope: PRIVATE_CHATS, ...language, commands: menu.filter((entry) => !GROUP_ONLY.has(entry.command)) },
      { scope: GROUP_CHATS, ...language, commands: menu },
    ];
  };
  const menu = telegramCommands(commands);
  const menus: CommandMenu[] = [{ commands: menu }, ...scoped(menu)];
  for (const languageCode of Object.keys(translations) as LanguageCode[]) {
    const descriptions = translations[languageCode] ?? {};
    const translated = commands.map((command) => ({ name: command.name, description: descriptions[command.name.toLowerCase()] ?? command.description }));
    menus.push(...scoped(telegramCommands(translated), languageCode));
  }
  return menus;
}

/**
 * Registers every menu, all at once. The menus are a convenience (commands work without them), so a menu Telegram
 * refuses is logged and the others still count; only stopping the adapter ends the registration with an error.
 */
export async function registerCommandMenus(api: Pick<BotApi, "setMyCommands">, menus: readonly CommandMenu[], logger: Logger, signal: AbortSignal): Promise<void> {
  // Every call listens for the stop; more than Node's default of 10 listeners is intended here.
  const stopping = AbortSignal.any([signal]);
  setMaxListeners(menus.length + 1, stopping);
  const results = await Promise.allSettled(
    menus.map((menu) => {
      const options: { scope?: BotCommandScope; language_code?: LanguageCode } = {};
      if (menu.scope) options.scope = menu.scope;
      if (menu.languageCode !== undefined) options.language_code = menu.languageCode;
      return api.setMyCommands(menu.commands, options, stopping);
    }),
  );
  if (signal.aborted) throw new Error("stopping: the command menus were not registered");
  results.forEach((result, index) => {
    if (result.status === "fulfilled") return;
    const menu = menus[index];
    logger.warn("could not register a command menu of the bot", {
      scope: menu?.scope?.type ?? "default",
      language: menu?.languageCode ?? "any",
      error: describeApiFailure(result.reason).message,
    });
  });
}
