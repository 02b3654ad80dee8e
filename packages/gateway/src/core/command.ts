/** A slash command addressed to the bot: `/name args`, or `/name@botname args` as Telegram sends it in groups. */
export interface ParsedCommand {
  name: string;
  args: string;
  /** The command named a bot explicitly (`/cmd@botname`). */
  addressedByName: boolean;
}

const COMMAND = /^\/([a-zA-Z][a-zA-Z0-9_]{0,31})(?:@([a-zA-Z0-9_]{1,64}))?(?:\s+([\s\S]*))?$/;

/**
 * Parses a command; returns undefined for ordinary text and for commands addressed to another bot by name.
 * `botName` is the bot's own username, compared without case.
 */
export function parseCommand(text: string, botName?: string): ParsedCommand | undefined {
  const match = COMMAND.exec(text.trim());
  if (!match) return undefined;
  const [, name = "", target, args = ""] = match;
  if (target !== undefined && botName !== undefined && target.toLowerCase() !== botName.toLowerCase()) return undefined;
  return { name: name.toLowerCase(), args: args.trim(), addressedByName: target !== undefined };
}
