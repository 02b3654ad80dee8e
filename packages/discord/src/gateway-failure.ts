import { DiscordjsError, DiscordjsErrorCodes, GatewayCloseCodes } from "discord.js";

/** Why a Discord session ended for good, in words an operator can act on (never the token). */
export interface GatewayFailure {
  cause: string;
  /** Retrying soon cannot help (a rejected token, a missing portal setting): wait the longest pause between attempts. */
  permanent: boolean;
}

export const CLOSE_HINTS: Partial<Record<number, string>> = {
  [GatewayCloseCodes.AuthenticationFailed]: "the bot token was rejected: check DISCORD_BOT_TOKEN",
  [GatewayCloseCodes.DisallowedIntents]:
    "the bot may not use the Message Content intent: enable it under Bot → Privileged Gateway Intents in the Discord developer portal",
  [GatewayCloseCodes.InvalidIntents]: "Discord did not accept the requested intents",
  [GatewayCloseCodes.ShardingRequired]: "the bot is in too many servers for one connection (sharding is not supported)",
};

/** discord.js reports these closes with `ShardDisconnect` and does not reconnect after them. */
export function closeFailure(code: number): GatewayFailure {
  const name = GatewayCloseCodes[code];
  const hint = CLOSE_HINTS[code] ?? "discord.js does not reconnect after this close";
  return { cause: `Discord closed the gateway connection with code ${code}${name ? ` (${name})` : ""}: ${hint}`, permanent: true };
}

/** A rejected `login()`: discord.js destroyed the client and will not try again on its own. */
export function loginFailure(error: unknown): GatewayFailure {
  if (error instanceof DiscordjsError && error.code === DiscordjsErrorCodes.TokenInvalid) {
    return { cause: "Discord rejected the bot token (401 Unauthorized): check DISCORD_BOT_TOKEN", permanent: true };
  }
  const status = statusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return { cause: `could not log in to Discord: ${status !== undefined && !message.includes(String(status)) ? `${status} ` : ""}${message}`, permanent: false };
}

function statusOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null || !("status" in error)) return undefined;
  return typeof error.status === "number" ? error.status : undefined;
}
