import { createHmac, timingSafeEqual } from "node:crypto";

/** Why a request to /slack/events was refused; also the metric label. */
export type RefusalReason = "missing_signature" | "stale_timestamp" | "bad_signature";

export type SignatureCheck = { ok: true } | { ok: false; reason: RefusalReason };

/** Slack's replay window: a request signed longer ago than this (or this far in the future) is refused. */
export const MAX_REQUEST_AGE_SECONDS = 5 * 60;

/** Slack's request signature: `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` keyed with the signing secret. */
export function slackRequestSignature(signingSecret: string, timestamp: string, rawBody: Buffer | string): string {
  const hmac = createHmac("sha256", signingSecret);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(rawBody);
  return `v0=${hmac.digest("hex")}`;
}

/**
 * Checks that a request comes from Slack and is fresh. The timestamp is checked first so an old request that was
 * captured and replayed is refused even though its signature is genuine.
 */
export function verifySlackRequest(input: {
  signingSecret: string;
  /** Lower-case header names, as Node delivers them. */
  headers: Readonly<Record<string, string>>;
  rawBody: Buffer;
  nowMs: number;
}): SignatureCheck {
  const signature = input.headers["x-slack-signature"];
  const timestamp = input.headers["x-slack-request-timestamp"];
  if (!signature || !timestamp) return { ok: false, reason: "missing_signature" };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "stale_timestamp" };
  const ageSeconds = Math.abs(Math.floor(input.nowMs / 1000) - Number(timestamp));
  if (ageSeconds > MAX_REQUEST_AGE_SECONDS) return { ok: false, reason: "stale_timestamp" };
  const expected = Buffer.from(slackRequestSignature(input.signingSecret, timestamp, input.rawBody), "utf8");
  const given = Buffer.from(signature, "utf8");
  // timingSafeEqual needs equal lengths; a length mismatch says nothing about the secret.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "bad_signature" };
  return { ok: true };
}
