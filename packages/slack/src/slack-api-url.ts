export const DEFAULT_SLACK_API_URL = "https://slack.com";
/** Where Slack serves files to bots; the bot token is sent nowhere else (plus a configured SLACK_API_URL's host). */
export const SLACK_FILE_ORIGIN = "https://files.slack.com";

/** The WebClient's `slackApiUrl` for SLACK_API_URL: `<base>/api/`, with the trailing slash the client needs. */
export function webApiUrlFor(apiUrl: string | undefined): string {
  const base = (apiUrl ?? DEFAULT_SLACK_API_URL).replace(/\/+$/, "");
  return base.endsWith("/api") ? `${base}/` : `${base}/api/`;
}

/** Origins that may receive the bot token when downloading files. */
export function trustedFileOrigins(apiUrl: string | undefined): Set<string> {
  const origins = new Set([SLACK_FILE_ORIGIN]);
  if (apiUrl) origins.add(new URL(apiUrl).origin);
  return origins;
}
