import type { SendResult } from "@hermes/gateway";

/** Where Slack's response_urls point; nothing else receives a slash command's reply (plus SLACK_API_URL's origin). */
export const SLACK_HOOKS_ORIGIN = "https://hooks.slack.com";
/** Slack accepts posts to a response_url for 30 minutes. */
export const RESPONSE_URL_LIFETIME_MS = 30 * 60 * 1000;

/**
 * Whether a response_url may be posted to: Slack's hooks host over https, or the origin of a configured
 * SLACK_API_URL (the operator's stand-in, trusted like it is with the bot token). A request that passed the signature
 * check names it, but the check still keeps the gateway from posting wherever a request says.
 */
export function responseUrlAllowed(responseUrl: string, apiUrl: string | undefined): boolean {
  let origin: string;
  try {
    origin = new URL(responseUrl).origin;
  } catch {
    return false;
  }
  if (origin === SLACK_HOOKS_ORIGIN) return true;
  return apiUrl !== undefined && origin === new URL(apiUrl).origin;
}

/**
 * The response_urls of slash commands whose replies may still come, by invocation id. Kept in memory: the process
 * that took the request is the one that delivers the reply right after it, and a reply that is delivered by another
 * process (or after a restart) finds none here and is handled by the adapter's fallback.
 */
export class PendingSlashReplies {
  private readonly urls = new Map<string, { url: string; until: number }>();

  constructor(private readonly now: () => number) {}

  remember(invocationId: string, url: string): void {
    const now = this.now();
    for (const [id, entry] of this.urls) if (entry.until <= now) this.urls.delete(id);
    this.urls.set(invocationId, { url, until: now + RESPONSE_URL_LIFETIME_MS });
  }

  urlFor(invocationId: string): string | undefined {
    const entry = this.urls.get(invocationId);
    return entry && entry.until > this.now() ? entry.url : undefined;
  }
}

/** Posts a reply to a response_url, shown only to the person who ran the command. */
export async function postSlashReply(fetchFn: typeof fetch, url: string, text: string, mrkdwn: boolean): Promise<SendResult> {
  let response: Response;
  try {
    response = await fetchFn(url, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ response_type: "ephemeral", text, mrkdwn }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    return { ok: false, retryable: true, ambiguous: true, error: `the slash command reply could not be posted: ${error instanceof Error ? error.message : String(error)}` };
  }
  const body = (await response.text().catch(() => "")).slice(0, 200);
  if (response.ok) return { ok: true };
  // Slack answers 404 `expired_url` / `used_url` for a response_url that can take no more posts.
  const retryable = response.status === 429 || response.status >= 500;
  return { ok: false, retryable, error: `Slack refused the slash command reply: ${response.status} ${body}`.trim() };
}
