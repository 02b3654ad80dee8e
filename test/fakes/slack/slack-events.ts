import { createHmac } from "node:crypto";

/** Builders for Slack Events API payloads, and a sender that signs them the way Slack does. */

let tsCounter = 0;

/** A fresh, increasing Slack message ts ("<seconds>.<micros>"). */
export function nextSlackTs(): string {
  tsCounter += 1;
  return `${1_700_000_000 + tsCounter}.${String(tsCounter).padStart(6, "0")}`;
}

let eventCounter = 0;

export interface MessageFields {
  channel: string;
  user: string;
  text: string;
  ts?: string;
  threadTs?: string;
  files?: unknown[];
  /** Author of the thread parent, as Slack sends on replies. */
  parentUserId?: string;
}

/** A `message` event in a DM (`message.im`). */
export function directMessage(fields: MessageFields): Record<string, unknown> {
  return messageEvent(fields, "im");
}

/** A `message` event in a channel the bot is in (`message.channels`). */
export function channelMessage(fields: MessageFields, channelType: "channel" | "group" | "mpim" = "channel"): Record<string, unknown> {
  return messageEvent(fields, channelType);
}

/** An `app_mention` event (no channel_type, as Slack sends it). */
export function appMention(fields: MessageFields): Record<string, unknown> {
  const ts = fields.ts ?? nextSlackTs();
  return definedOnly({ type: "app_mention", channel: fields.channel, user: fields.user, text: fields.text, ts, event_ts: ts, thread_ts: fields.threadTs, files: fields.files, parent_user_id: fields.parentUserId });
}

function messageEvent(fields: MessageFields, channelType: string): Record<string, unknown> {
  const ts = fields.ts ?? nextSlackTs();
  return definedOnly({
    type: "message",
    subtype: fields.files ? "file_share" : undefined,
    channel: fields.channel,
    channel_type: channelType,
    user: fields.user,
    text: fields.text,
    ts,
    event_ts: ts,
    thread_ts: fields.threadTs,
    parent_user_id: fields.parentUserId,
    files: fields.files,
  });
}

/** Wraps an event in the Events API envelope. */
export function eventCallback(event: Record<string, unknown>, options: { eventId?: string; teamId?: string; botUserId?: string } = {}): Record<string, unknown> {
  eventCounter += 1;
  const teamId = options.teamId ?? "T1";
  return {
    token: "verification-token-unused",
    team_id: teamId,
    api_app_id: "A1",
    event,
    type: "event_callback",
    event_id: options.eventId ?? `Ev${String(eventCounter).padStart(8, "0")}`,
    event_time: 1_700_000_000 + eventCounter,
    authorizations: [{ enterprise_id: null, team_id: teamId, user_id: options.botUserId ?? "UBOT", is_bot: true, is_enterprise_install: false }],
  };
}

export interface DeliveryOptions {
  signingSecret: string;
  /** Seconds since the epoch to sign with (default: now). */
  timestampSeconds?: number;
  /** "forged" signs with a wrong secret; "missing" sends no signature headers. */
  signature?: "valid" | "forged" | "missing";
  retryNum?: number;
  retryReason?: string;
}

/** POSTs a payload to the gateway's /slack/events as Slack would; returns the HTTP status and body. */
export async function postSlackEvent(url: string, payload: unknown, options: DeliveryOptions): Promise<{ status: number; text: string }> {
  const body = JSON.stringify(payload);
  const timestamp = String(options.timestampSeconds ?? Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.signature !== "missing") {
    const secret = options.signature === "forged" ? `${options.signingSecret}-not` : options.signingSecret;
    headers["x-slack-request-timestamp"] = timestamp;
    headers["x-slack-signature"] = `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
  }
  if (options.retryNum !== undefined) {
    headers["x-slack-retry-num"] = String(options.retryNum);
    headers["x-slack-retry-reason"] = options.retryReason ?? "http_timeout";
  }
  const response = await fetch(url, { method: "POST", headers, body });
  return { status: response.status, text: await response.text() };
}

export interface SlashCommandFields {
  channel: string;
  user: string;
  text: string;
  responseUrl: string;
  triggerId?: string;
  command?: string;
}

let triggerCounter = 0;

/** POSTs a slash command to the gateway's /slack/commands as Slack would (form-encoded, signed like events). */
export async function postSlashCommand(url: string, fields: SlashCommandFields, options: DeliveryOptions): Promise<{ status: number; text: string }> {
  triggerCounter += 1;
  const body = new URLSearchParams({
    token: "verification-token-unused",
    team_id: "T1",
    channel_id: fields.channel,
    user_id: fields.user,
    command: fields.command ?? "/hermes",
    text: fields.text,
    api_app_id: "A1",
    response_url: fields.responseUrl,
    trigger_id: fields.triggerId ?? `trigger.${triggerCounter}`,
  }).toString();
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

function definedOnly(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}
