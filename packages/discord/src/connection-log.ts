import { Events, RESTEvents, type Client, type REST } from "discord.js";
import type { Logger } from "@hermes/agent";
import { isEditRequest } from "./edit-message.js";

/** discord.js's own warnings and errors; the connection's ups and downs are logged where its state is tracked. */
export function logClientWarnings(client: Client, logger: Logger): void {
  client.on(Events.Warn, (message) => logger.warn("discord.js warning", { message }));
  client.on(Events.Error, (error) => logger.error("discord.js error", { error: error.message }));
}

/**
 * Sends wait out rate limits in discord.js's REST queue; edits are given back to the gateway with the wait instead.
 * Operators still want to know when replies are held back.
 */
export function logRateLimits(rest: REST, logger: Logger): void {
  rest.on(RESTEvents.RateLimited, (info) => {
    const message = isEditRequest(info) ? "Discord rate limit reached; an edit is given back to be retried later" : "Discord rate limit reached; waiting before sending";
    logger.info(message, { route: info.route, retryAfterMs: info.retryAfter, global: info.global });
  });
}
