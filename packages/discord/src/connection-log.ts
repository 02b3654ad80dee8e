import { Events, GatewayCloseCodes, RESTEvents, type Client, type REST } from "discord.js";
import type { Logger } from "@hermes/agent";

const CLOSE_HINTS: Partial<Record<number, string>> = {
  [GatewayCloseCodes.AuthenticationFailed]: "the bot token was rejected: check DISCORD_BOT_TOKEN",
  [GatewayCloseCodes.DisallowedIntents]:
    "the bot may not use the Message Content intent: enable it under Bot → Privileged Gateway Intents in the Discord developer portal",
  [GatewayCloseCodes.InvalidIntents]: "Discord did not accept the requested intents",
  [GatewayCloseCodes.ShardingRequired]: "the bot is in too many servers for one connection (sharding is not supported)",
};

/** Tells the operator how the Discord connection is doing: reconnects are routine, a final disconnect is not. */
export function logConnectionEvents(client: Client, logger: Logger): void {
  client.on(Events.ShardReconnecting, (shardId) => logger.info("Discord gateway connection lost; reconnecting", { shardId }));
  client.on(Events.ShardResume, (shardId, replayedEvents) => logger.info("Discord gateway session resumed", { shardId, replayedEvents }));
  client.on(Events.ShardDisconnect, (event, shardId) => {
    const hint = CLOSE_HINTS[event.code] ?? "the connection will not be retried";
    logger.error(`Discord closed the gateway connection for good: ${hint}`, { shardId, code: event.code });
  });
  client.on(Events.ShardError, (error, shardId) => logger.warn("Discord gateway connection error", { shardId, error: error.message }));
  client.on(Events.Warn, (message) => logger.warn("discord.js warning", { message }));
  client.on(Events.Error, (error) => logger.error("discord.js error", { error: error.message }));
}

/** Rate limits are waited out by discord.js's REST queue; operators still want to know when replies are held back. */
export function logRateLimits(rest: REST, logger: Logger): void {
  rest.on(RESTEvents.RateLimited, (info) =>
    logger.info("Discord rate limit reached; waiting before sending", { route: info.route, retryAfterMs: info.retryAfter, global: info.global }),
  );
}
