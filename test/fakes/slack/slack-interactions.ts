import { createHmac } from "node:crypto";
import type { FakeSocketMode, PostedMessage } from "./fake-slack.js";
import type { DeliveryOptions } from "./slack-events.js";

/** Which button of a posted message a person presses, and as whom. */
export interface ButtonPressInput {
  /** The ts of the bot's message (as chat.postMessage answered it). */
  ts: string;
  user: string;
  userName?: string;
  /** The button with this value; else the one at `index` (default the first). */
  value?: string;
  index?: number;
  /**
   * Over HTTP: the gateway's `/slack/interactivity` URL and how to sign the request (like Slack's signature on
   * events). Without it the press goes over the Socket Mode connection as an `interactive` envelope.
   */
  http?: { url: string } & DeliveryOptions;
}

/** What the press got back: the HTTP answer, or the id of the Socket Mode envelope once the client acknowledged it. */
export type ButtonPressResult = { via: "http"; status: number; text: string } | { via: "socket"; envelopeId: string };

export interface PressContext {
  posted: readonly PostedMessage[];
  socket: FakeSocketMode;
  botUserId: string;
  botId: string;
  teamId: string;
  /** The fake's own origin, for the press's response_url. */
  base: string;
}

let pressCounter = 0;

interface ButtonElement {
  action_id: string;
  value: string;
  text?: unknown;
  style?: string;
  blockId?: string;
}

function buttonsOf(message: PostedMessage): ButtonElement[] {
  const buttons: ButtonElement[] = [];
  for (const block of message.blocks ?? []) {
    if (!isRecord(block) || block.type !== "actions" || !Array.isArray(block.elements)) continue;
    for (const element of block.elements) {
      if (!isRecord(element) || element.type !== "button" || typeof element.action_id !== "string" || typeof element.value !== "string") continue;
      buttons.push({
        action_id: element.action_id,
        value: element.value,
        text: element.text,
        style: typeof element.style === "string" ? element.style : undefined,
        blockId: typeof block.block_id === "string" ? block.block_id : undefined,
      });
    }
  }
  return buttons;
}

/** Slack's `block_actions` payload for a press of a button on a message the bot posted (as Slack sends it). */
export function blockActionsPayload(context: PressContext, input: ButtonPressInput): Record<string, unknown> {
  const message = context.posted.find((candidate) => candidate.ts === input.ts);
  if (!message) throw new Error(`fake slack: no posted message has ts ${input.ts}`);
  const buttons = buttonsOf(message);
  const button = input.value !== undefined ? buttons.find((candidate) => candidate.value === input.value) : buttons[input.index ?? 0];
  if (!button) throw new Error(`fake slack: message ${input.ts} has no such button (it has ${buttons.map((b) => b.value).join(", ") || "none"})`);
  pressCounter += 1;
  const actionTs = `${1_900_000_000 + pressCounter}.${String(pressCounter).padStart(6, "0")}`;
  const container: Record<string, unknown> = { type: "message", message_ts: message.ts, channel_id: message.channel, is_ephemeral: false };
  if (message.thread_ts) container.thread_ts = message.thread_ts;
  const name = input.userName ?? input.user.toLowerCase();
  return {
    type: "block_actions",
    user: { id: input.user, username: name, name, team_id: context.teamId },
    api_app_id: "A1",
    token: "verification-token-unused",
    container,
    trigger_id: `${pressCounter}.trigger`,
    team: { id: context.teamId, domain: "fake" },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: message.channel, name: message.channel.startsWith("D") ? "directmessage" : "general" },
    message: { type: "message", user: context.botUserId, bot_id: context.botId, text: message.text, ts: message.ts, ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}), blocks: message.blocks },
    state: { values: {} },
    response_url: `${context.base}/actions/${pressCounter}`,
    actions: [{ action_id: button.action_id, block_id: button.blockId ?? "b", text: button.text, value: button.value, ...(button.style ? { style: button.style } : {}), type: "button", action_ts: actionTs }],
  };
}

/** Presses a button as a person would: Slack then posts the payload to the interactivity URL, or sends it over the socket. */
export async function pressButton(context: PressContext, input: ButtonPressInput): Promise<ButtonPressResult> {
  const payload = blockActionsPayload(context, input);
  if (!input.http) return { via: "socket", envelopeId: await context.socket.send(payload, { type: "interactive" }) };
  const answer = await postInteraction(input.http.url, payload, input.http);
  return { via: "http", ...answer };
}

/** POSTs an interactivity payload as Slack does: `payload=<json>` form-encoded, signed like events. */
export async function postInteraction(url: string, payload: unknown, options: DeliveryOptions): Promise<{ status: number; text: string }> {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(options.timestampSeconds ?? Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (options.signature !== "missing") {
    const secret = options.signature === "forged" ? `${options.signingSecret}-not` : options.signingSecret;
    headers["x-slack-request-timestamp"] = timestamp;
    headers["x-slack-signature"] = `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
  }
  const response = await fetch(url, { method: "POST", headers, body });
  return { status: response.status, text: await response.text() };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
