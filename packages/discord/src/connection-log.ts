import { Events, RESTEvents, type Client, type REST } from "discord.js";
import type { Logger } from "@hermes/agent";

/** discord.js's own warnings and errors; the connection's ups and downs are logged where its state is tracked. */
export function logClientWarnings(client: Client, logger: Logger): void {
  client.on(Events.Warn, (message) => logger.warn("discord.js warning", { message }));
  client.on(Events.Error, (error) => logger.error("discord.js error", { error: error.message }));
}

/** Rate limits are waited out by discord.js's REST queue; operators still want to know when replies are held back. */
export function logRateLimits(rest: REST, logger: Logger): void {
  rest.on(RESTEvents.RateLimited, (info) =>
    logger.info("Discord rate limit reached; waiting before sending", { route: info.route, retryAfterMs: info.retryAfter, global: info.global }),
  );
}
