import type { Logger } from "@hermes/agent";
import type { AdapterContext, HttpHandler } from "@hermes/gateway";
import { buttonPressMessage, readButtonPress } from "./button-press.js";
import { verifySlackRequest, type RefusalReason } from "./request-signature.js";
import { settlesWithin } from "./retry-policy.js";
import { isRecord } from "./slack-events.js";
import type { UserNames } from "./user-names.js";

export const SLACK_INTERACTIVITY_PATH = "/slack/interactivity";

export interface InteractivityIntakeOptions {
  logger: Logger;
  now: () => number;
  /** The gateway, while the adapter runs; undefined while stopping, so a press is refused instead of lost. */
  context: () => AdapterContext | undefined;
  /** The presser's display name lookup, once the adapter is connected. */
  names: () => UserNames | undefined;
  nameLookupWaitMs: number;
  /** How long a press waits to be persisted before Slack is answered anyway (Slack wants an answer within 3 s). */
  ackDeadlineMs: number;
}

export type InteractionOutcome = { kind: "accepted" } | { kind: "ignored" } | { kind: "unavailable" } | { kind: "failed" };

const TEXT_HEADERS = { "content-type": "text/plain; charset=utf-8" };

/**
 * Hands a button press (a `block_actions` payload, from HTTP or Socket Mode) to the gateway as a message. Slack is
 * answered once the press is persisted, or at the acknowledgement deadline, so the button's spinner never waits for
 * the agent; Slack never sends an interactivity payload again, so a press that could not be saved is only logged.
 */
export async function acceptInteraction(payload: Readonly<Record<string, unknown>>, options: InteractivityIntakeOptions): Promise<InteractionOutcome> {
  const read = readButtonPress(payload);
  if (!read.ok) {
    options.logger.debug("slack interaction ignored", { reason: read.ignored });
    return { kind: "ignored" };
  }
  const context = options.context();
  if (!context) return { kind: "unavailable" };
  const message = buttonPressMessage(read.press, options.now());
  const name = await options.names()?.nameWithin(message.user.id, options.nameLookupWaitMs);
  if (name) message.user.name = name;
  const receiving = context.receive(message).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(await settlesWithin(receiving, options.ackDeadlineMs))) {
    options.logger.warn("slack button press still being handed over after the acknowledgement deadline; acknowledged anyway");
    return { kind: "accepted" };
  }
  const failure = await receiving;
  if (failure === undefined) return { kind: "accepted" };
  options.logger.error("slack button press could not be handed to the gateway", { error: failure });
  return { kind: "failed" };
}

/**
 * `POST /slack/interactivity` (the app's Interactivity Request URL): signed like events and checked before anything
 * else is read; the payload comes form-encoded as `payload=<json>`. A press that could not be saved is answered 500,
 * which Slack shows the presser as a failed action, so they can press again.
 */
export function interactivityRoute(options: InteractivityIntakeOptions & { signingSecret: string; onRefused: (reason: RefusalReason) => void }): HttpHandler {
  return async (request) => {
    const check = verifySlackRequest({ signingSecret: options.signingSecret, headers: request.headers, rawBody: request.rawBody, nowMs: options.now() });
    if (!check.ok) {
      options.onRefused(check.reason);
      options.logger.warn("slack interaction refused", { reason: check.reason });
      return { status: 401, body: "invalid request signature\n", headers: TEXT_HEADERS };
    }
    const payload = formPayload(request.rawBody);
    if (!payload) return { status: 400, body: "unreadable payload\n", headers: TEXT_HEADERS };
    return interactionAnswer(await acceptInteraction(payload, options));
  };
}

/** Slack's HTTP answer to an interaction: 200 (also for one ignored), 503 while stopping, 500 when it was not saved. */
export function interactionAnswer(outcome: InteractionOutcome): Awaited<ReturnType<HttpHandler>> {
  if (outcome.kind === "unavailable") return { status: 503, body: "not accepting interactions\n", headers: TEXT_HEADERS };
  if (outcome.kind === "failed") return { status: 500, body: "interaction not processed\n", headers: TEXT_HEADERS };
  return { status: 200, body: "", headers: TEXT_HEADERS };
}

function formPayload(rawBody: Buffer): Record<string, unknown> | undefined {
  const field = new URLSearchParams(rawBody.toString("utf8")).get("payload");
  if (field === null) return undefined;
  try {
    const parsed: unknown = JSON.parse(field);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
