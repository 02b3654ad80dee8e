const COMMAND = /^\/([A-Za-z0-9_]{1,32})(?:@([A-Za-z0-9_]{1,64}))?(?=\s|$)/;
const GATEWAY_NAME = /^[A-Za-z0-9_]{1,64}$/;

export type CommandAddress =
  /** The text to hand on, and whether it names this bot (`/cmd@thisbot`). */
  | { kind: "ours"; text: string; namesBot: boolean }
  /** `/cmd@otherbot`: meant for another bot in the same chat. */
  | { kind: "other-bot" };

export interface CommandAddressOptions {
  /** The bot's Telegram username. */
  username: string;
  /** The name the gateway matches `/cmd@name` against (HERMES_BOT_NAME), when it is set. */
  gatewayName?: string;
}

/**
 * Reads who a leading `/command` is for. Telegram appends `@username` to commands in groups; the gateway knows the
 * bot by its own configured name, so a command naming this bot is rewritten to the name the gateway expects.
 * `/start`, which Telegram sends when someone opens the bot, is answered like `/help`.
 */
export function addressCommand(text: string, options: CommandAddressOptions): CommandAddress {
  const match = COMMAND.exec(text);
  if (!match) return { kind: "ours", text, namesBot: false };
  const [whole, rawName = "", target] = match;
  if (target !== undefined && target.toLowerCase() !== options.username.toLowerCase()) return { kind: "other-bot" };
  const name = rawName.toLowerCase() === "start" ? "help" : rawName;
  const rest = text.slice(whole.length);
  if (target === undefined) return { kind: "ours", text: `/${name}${rest}`, namesBot: false };
  return { kind: "ours", text: `/${name}${suffixFor(target, options.gatewayName)}${rest}`, namesBot: true };
}

function suffixFor(target: string, gatewayName: string | undefined): string {
  if (gatewayName === undefined || gatewayName.toLowerCase() === target.toLowerCase()) return `@${target}`;
  // A gateway name that cannot follow "@" would make the gateway miss the command; a bare command still reaches it.
  return GATEWAY_NAME.test(gatewayName) ? `@${gatewayName}` : "";
}
