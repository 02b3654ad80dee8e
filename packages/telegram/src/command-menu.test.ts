import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { COMMANDS } from "@hermes/gateway";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeTelegram, type FakeTelegram } from "../../../test/fakes/telegram/index.js";
import { recordingContext as context } from "../../../test/support/recording-context.js";
import { telegramCommands } from "./bot-commands.js";
import { commandMenus } from "./command-menu.js";
import { COMMAND_TRANSLATIONS } from "./command-translations.js";
import { recordingLogger } from "./recording-logger.js";
import { createTelegramAdapter, type TelegramAdapter } from "./telegram-adapter.js";

const LANGUAGES = ["de", "es", "fr", "pt", "ru", "zh"];
const names = (commands: ReadonlyArray<{ command: string }> | undefined): string[] => (commands ?? []).map((entry) => entry.command);

describe("commandMenus", () => {
  const menus = commandMenus(COMMANDS);

  it("keeps the default menu, leaves group-only commands out of private chats, and repeats both per language", () => {
    const everything = COMMANDS.map((command) => command.name);
    expect(menus.map((menu) => [menu.scope?.type ?? "default", menu.languageCode ?? ""])).toEqual([
      ["default", ""],
      ["all_private_chats", ""],
      ["all_group_chats", ""],
      ...LANGUAGES.flatMap((language) => [
        ["all_private_chats", language],
        ["all_group_chats", language],
      ]),
    ]);
    expect(menus[0]?.commands).toEqual(telegramCommands(COMMANDS));
    for (const menu of menus) {
      const expected = menu.scope?.type === "all_private_chats" ? everything.filter((name) => name !== "respond") : everything;
      expect(names(menu.commands)).toEqual(expected);
    }
  });

  it("translates every command's description, within Telegram's rules", () => {
    for (const menu of menus.filter((entry) => entry.languageCode !== undefined)) {
      const english = new Map(telegramCommands(COMMANDS).map((entry) => [entry.command, entry.description]));
      for (const entry of menu.commands) {
        expect(entry.description, `${menu.languageCode} /${entry.command}`).not.toBe(english.get(entry.command));
        expect(entry.description.length).toBeGreaterThan(0);
        expect(entry.description.length).toBeLessThanOrEqual(256);
      }
    }
    for (const language of LANGUAGES) {
      const table = COMMAND_TRANSLATIONS[language as keyof typeof COMMAND_TRANSLATIONS] ?? {};
      expect(COMMANDS.filter((command) => table[command.name] === undefined).map((command) => command.name), language).toEqual([]);
    }
  });

  it("shows the English description of a command a language has no translation for", () => {
    const [, , , germanPrivate] = commandMenus([{ name: "new", description: "start over" }, { name: "brandnew", description: "not translated yet" }], { de: { new: "neu anfangen" } });
    expect(germanPrivate).toEqual({ scope: { type: "all_private_chats" }, languageCode: "de", commands: [
      { command: "new", description: "neu anfangen" },
      { command: "brandnew", description: "not translated yet" },
    ] });
  });
});

describe("TelegramAdapter command menus", () => {
  let fake: FakeTelegram;
  let dir: string;
  let adapter: TelegramAdapter | undefined;

  beforeEach(async () => {
    fake = await startFakeTelegram();
    dir = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
  });

  afterEach(async () => {
    await adapter?.stop();
    adapter = undefined;
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });

  function make() {
    const logger = recordingLogger();
    adapter = createTelegramAdapter({ token: fake.token, apiRoot: fake.apiRoot }, { logger, attachmentsDir: dir, sleep: async () => {}, random: () => 0.5 });
    return { adapter, logger };
  }

  it("registers the menu per scope and language at start", async () => {
    const { adapter } = make();
    await adapter.start(context());
    expect(fake.commandLists.map((list) => `${list.scope}/${list.languageCode}`).sort()).toEqual(
      ["default/", "all_private_chats/", "all_group_chats/", ...LANGUAGES.flatMap((language) => [`all_private_chats/${language}`, `all_group_chats/${language}`])].sort(),
    );
    expect(fake.commands).toEqual(telegramCommands(COMMANDS));
    expect(names(fake.commandsFor("all_private_chats"))).not.toContain("respond");
    expect(names(fake.commandsFor("all_group_chats", "de"))).toContain("respond");
    expect(fake.commandsFor("all_group_chats", "de")?.find((entry) => entry.command === "help")?.description).toBe("die Befehle auflisten");
    expect(fake.commandsFor("all_private_chats", "fr")?.find((entry) => entry.command === "help")?.description).toBe("lister les commandes");
  });

  it("starts although Telegram refuses one language's menus, and says so", async () => {
    fake.failNext("setMyCommands", { error_code: 400, description: "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID" }, { times: 2, when: (params) => params.language_code === "ru" });
    const { adapter, logger } = make();
    const ctx = context();
    await adapter.start(ctx);
    const { update } = fake.userWrites({ text: "still here" });
    await fake.waitForConfirmation(update);
    expect(ctx.received.map((m) => m.text)).toEqual(["still here"]);
    expect(fake.commandLists.filter((list) => list.languageCode === "ru")).toEqual([]);
    expect(fake.commandLists).toHaveLength(3 + 2 * (LANGUAGES.length - 1));
    const warnings = logger.entries.filter((entry) => entry.message === "could not register a command menu of the bot");
    expect(warnings.map((entry) => [entry.level, entry.fields.scope, entry.fields.language, entry.fields.error]).sort()).toEqual([
      ["warn", "all_group_chats", "ru", "400 Bad Request: BOT_COMMAND_DESCRIPTION_INVALID"],
      ["warn", "all_private_chats", "ru", "400 Bad Request: BOT_COMMAND_DESCRIPTION_INVALID"],
    ]);
  });
});
