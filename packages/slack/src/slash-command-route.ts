import type { Logger } from "@hermes/agent";
import type { AdapterContext, HttpHandler } from "@hermes/gateway";
import { verifySlackRequest, type RefusalReason } from "./request-signature.js";
import { settlesWithin } from "./retry-policy.js";
import { parseSlashCommand, slashCommandMessage } from "./slash-command.js";
import { responseUrlAllowed, type PendingSlashReplies } from "./slash-replies.js";

export const SLACK_COMMANDS_PATH = "/slack/commands";

export interface SlashCommandIntakeOptions {
  apiUrl: string | undefined;
  logger: Logger;
  now: () => number;
  pending: PendingSlashReplies;
  /** The gateway, while the adapter runs; undefined while stopping, so commands are refused instead of lost. */
  context: () => AdapterContext | undefined;
  /** How long a command waits to be persisted before Slack is answered anyway (Slack wants an answer within 3 s). */
  ackDeadlineMs: number;
}

export type SlashCommandOutcome =
  | { kind: "accepted" }
  | { kind: "refused"; problem: string }
  | { kind: "unavailable" }
  | { kind: "failed" };

/** What Slack shows the invoker when a command could not be handed to the gateway. */
export const SLASH_COMMAND_FAILED_TEXT = "Sorry, that command could not be run. Please try again.";

const TEXT_HEADERS = { "content-type": "text/plain; charset=utf-8" };

/**
 * Hands a slash command (already known to come from Slack) to the gateway as the chat command it names; its output
 * follows through the response_url, which must be Slack's so that no request makes the gateway post elsewhere.
 */
export async function acceptSlashCommand(fields: Readonly<Record<string, unknown>>, options: SlashCommandIntakeOptions): Promise<SlashCommandOutcome> {
  const parsed = parseSlashCommand(fields);
  if (!parsed.ok) return { kind: "refused", problem: parsed.problem };
  const { command } = parsed;
  if (!responseUrlAllowed(command.responseUrl, options.apiUrl)) {
    options.logger.warn("slack slash command refused: its response_url is not Slack's", { command: command.command });
    return { kind: "refused", problem: "response_url is not a Slack hooks URL" };
  }
  const context = options.context();
  if (!context) return { kind: "unavailable" };
  options.pending.remember(command.invocationId, command.responseUrl);
  const receiving = context.receive(slashCommandMessage(command, options.now())).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(await settlesWithin(receiving, options.ackDeadlineMs))) {
    options.logger.warn("slack slash command still being handed over after the acknowledgement deadline; acknowledged anyway");
    return { kind: "accepted" };
  }
  const failure = await receiving;
  if (failure === undefined) return { kind: "accepted" };
  options.logger.error("slack slash command could not be handed to the gateway", { error: failure });
  return { kind: "failed" };
}

/**
 * `POST /slack/commands`: signed like events (checked before anything else is read). Slack gets an empty 200 at once
 * (a text body would be shown to the invoker), and the command's output follows through the response_url.
 */
export function slashCommandRoute(options: SlashCommandIntakeOptions & { signingSecret: string; onRefused: (reason: RefusalReason) => void }): HttpHandler {
  return async (request) => {
    const check = verifySlackRequest({ signingSecret: options.signingSecret, headers: request.headers, rawBody: request.rawBody, nowMs: options.now() });
    if (!check.ok) {
      options.onRefused(check.reason);
      options.logger.warn("slack slash command refused", { reason: check.reason });
      return { status: 401, body: "invalid request signature\n", headers: TEXT_HEADERS };
    }
    const fields = Object.fromEntries(new URLSearchParams(request.rawBody.toString("utf8")).entries());
    const outcome = await acceptSlashCommand(fields, options);
    if (outcome.kind === "refused") return { status: 400, body: `${outcome.problem}\n`, headers: TEXT_HEADERS };
    if (outcome.kind === "unavailable") return { status: 503, body: "not accepting commands\n", headers: TEXT_HEADERS };
    return { status: 200, body: outcome.kind === "failed" ? SLASH_COMMAND_FAILED_TEXT : "", headers: TEXT_HEADERS };
  };
}
