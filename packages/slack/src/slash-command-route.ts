import type { Logger } from "@hermes/agent";
import type { AdapterContext, HttpHandler } from "@hermes/gateway";
import { verifySlackRequest, type RefusalReason } from "./request-signature.js";
import { settlesWithin } from "./retry-policy.js";
import { parseSlashCommand, slashCommandMessage } from "./slash-command.js";
import { responseUrlAllowed, type PendingSlashReplies } from "./slash-replies.js";

export const SLACK_COMMANDS_PATH = "/slack/commands";

export interface SlashCommandRouteOptions {
  signingSecret: string;
  apiUrl: string | undefined;
  logger: Logger;
  now: () => number;
  pending: PendingSlashReplies;
  /** The gateway, while the adapter runs; undefined while stopping, so commands are refused instead of lost. */
  context: () => AdapterContext | undefined;
  onRefused: (reason: RefusalReason) => void;
  /** How long the request waits for the command to be persisted before Slack is answered anyway (Slack wants 3 s). */
  ackDeadlineMs: number;
}

const TEXT_HEADERS = { "content-type": "text/plain; charset=utf-8" };

/**
 * `POST /slack/commands`: signed like events (checked before anything else is read), then handed to the gateway as
 * the chat command it names. Slack gets an empty 200 at once; the command's output follows through the response_url.
 */
export function slashCommandRoute(options: SlashCommandRouteOptions): HttpHandler {
  return async (request) => {
    const check = verifySlackRequest({ signingSecret: options.signingSecret, headers: request.headers, rawBody: request.rawBody, nowMs: options.now() });
    if (!check.ok) {
      options.onRefused(check.reason);
      options.logger.warn("slack slash command refused", { reason: check.reason });
      return { status: 401, body: "invalid request signature\n", headers: TEXT_HEADERS };
    }
    const parsed = parseSlashCommand(request.rawBody);
    if (!parsed.ok) return { status: 400, body: `${parsed.problem}\n`, headers: TEXT_HEADERS };
    const { command } = parsed;
    if (!responseUrlAllowed(command.responseUrl, options.apiUrl)) {
      options.logger.warn("slack slash command refused: its response_url is not Slack's", { command: command.command });
      return { status: 400, body: "response_url is not a Slack hooks URL\n", headers: TEXT_HEADERS };
    }
    const context = options.context();
    if (!context) return { status: 503, body: "not accepting commands\n", headers: TEXT_HEADERS };
    options.pending.remember(command.invocationId, command.responseUrl);
    const receiving = context.receive(slashCommandMessage(command, options.now())).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (!(await settlesWithin(receiving, options.ackDeadlineMs))) {
      options.logger.warn("slack slash command still being handed over after the acknowledgement deadline; acknowledged anyway");
      return { status: 200, body: "", headers: TEXT_HEADERS };
    }
    const failure = await receiving;
    if (failure !== undefined) {
      options.logger.error("slack slash command could not be handed to the gateway", { error: failure });
      return { status: 200, body: "Sorry, that command could not be run. Please try again.", headers: TEXT_HEADERS };
    }
    return { status: 200, body: "", headers: TEXT_HEADERS };
  };
}
