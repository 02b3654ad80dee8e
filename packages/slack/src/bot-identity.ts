import { abortableSleep } from "@hermes/gateway";
import type { webApi } from "@slack/bolt";
import type { ConnectionStatus } from "./connection-status.js";
import { retryDelayMs, type RetryPolicy } from "./retry-policy.js";
import { connectionFailure, type ConnectionFailure } from "./slack-failure.js";

export interface BotIdentity {
  userId: string;
  botId?: string;
  name?: string;
}

export type IdentityResult = { ok: true; identity: BotIdentity } | { ok: false; failure: ConnectionFailure };

/** Who the bot is (auth.test with the bot token); a refusal or an unreachable Slack is a value, to be retried. */
export async function identifyBot(client: webApi.WebClient): Promise<IdentityResult> {
  let auth: Awaited<ReturnType<webApi.WebClient["auth"]["test"]>>;
  try {
    auth = await client.auth.test();
  } catch (error) {
    return { ok: false, failure: connectionFailure(error, { method: "auth.test", token: "SLACK_BOT_TOKEN" }) };
  }
  if (typeof auth.user_id !== "string") return { ok: false, failure: { cause: "auth.test named no bot user: SLACK_BOT_TOKEN must be a bot token (xoxb-…)" } };
  const identity: BotIdentity = { userId: auth.user_id };
  if (typeof auth.bot_id === "string") identity.botId = auth.bot_id;
  if (typeof auth.user === "string") identity.name = auth.user;
  return { ok: true, identity };
}

export interface IdentifyRetries {
  /** Where each failed attempt is reported. */
  status: Pick<ConnectionStatus, "retrying">;
  retry: RetryPolicy;
  now: () => number;
  signal: AbortSignal;
  /** Called after each failed attempt has been reported. */
  onFailure: () => void;
}

/**
 * Asks auth.test until Slack accepts the bot token, reporting each failure (`retrying`, with the cause) and waiting
 * with capped backoff in between. Undefined once `signal` aborts (the adapter stopped).
 */
export async function identifyBotUntilAccepted(client: webApi.WebClient, options: IdentifyRetries): Promise<BotIdentity | undefined> {
  for (let failures = 1; ; failures += 1) {
    const result = await identifyBot(client);
    if (options.signal.aborted) return undefined;
    if (result.ok) return result.identity;
    const delayMs = retryDelayMs(failures, options.retry, result.failure.retryAfterMs);
    options.status.retrying(result.failure.cause, options.now() + delayMs, options.now());
    options.onFailure();
    await abortableSleep(delayMs, options.signal);
    if (options.signal.aborted) return undefined;
  }
}
