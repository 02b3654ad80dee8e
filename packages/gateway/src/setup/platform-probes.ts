import { describeRequestFailure, fail, jsonBody, ok, withoutSecrets, type ProbeDeps, type ProbeResult } from "./probe-result.js";

export const DEFAULT_DISCORD_API_URL = "https://discord.com/api";
export const DEFAULT_SLACK_API_URL = "https://slack.com";

/** Telegram `getMe` with the bot token. */
export async function probeTelegram(settings: { token: string; apiRoot: string }, deps: ProbeDeps): Promise<ProbeResult> {
  const root = settings.apiRoot.replace(/\/+$/, "");
  const answered = await request(deps, `${root}/bot${settings.token}/getMe`, { method: "POST" });
  if (!answered.ok) return fail(withoutSecrets(`cannot reach the Telegram Bot API at ${root}: ${answered.error}`, [settings.token]));
  const { response, body } = answered;
  const result = body?.result as { username?: unknown; id?: unknown } | undefined;
  if (response.ok && body?.ok === true && result) return ok(`@${String(result.username)} (bot id ${String(result.id)})`);
  const description = typeof body?.description === "string" ? body.description : response.statusText;
  const hint = response.status === 401 || response.status === 404 ? ": check TELEGRAM_BOT_TOKEN (from @BotFather)" : "";
  return fail(withoutSecrets(`Telegram refused the token (${response.status} ${description})${hint}`, [settings.token]));
}

/** Discord `GET /users/@me` with `Authorization: Bot <token>`. */
export async function probeDiscord(settings: { token: string; apiUrl?: string }, deps: ProbeDeps): Promise<ProbeResult> {
  const base = (settings.apiUrl ?? DEFAULT_DISCORD_API_URL).replace(/\/+$/, "");
  const answered = await request(deps, `${base}/v10/users/@me`, { headers: { authorization: `Bot ${settings.token}` } });
  if (!answered.ok) return fail(withoutSecrets(`cannot reach the Discord API at ${base}: ${answered.error}`, [settings.token]));
  const { response, body } = answered;
  if (response.ok && typeof body?.username === "string") return ok(`${body.username} (bot id ${String(body.id)})`);
  const message = typeof body?.message === "string" ? body.message : response.statusText;
  const hint = response.status === 401 ? ": check DISCORD_BOT_TOKEN (Developer Portal → Bot → Reset Token)" : "";
  return fail(withoutSecrets(`Discord refused the token (${response.status} ${message})${hint}`, [settings.token]));
}

/** Slack `auth.test` with the bot token, and `apps.connections.open` with the app token when Socket Mode is used. */
export async function probeSlack(settings: { botToken: string; appToken?: string; apiUrl?: string }, deps: ProbeDeps): Promise<ProbeResult> {
  // SLACK_API_URL is the site (as for the adapter); the Web API lives under /api/.
  const site = (settings.apiUrl ?? DEFAULT_SLACK_API_URL).replace(/\/+$/, "");
  const base = site.endsWith("/api") ? `${site}/` : `${site}/api/`;
  const secrets = [settings.botToken, settings.appToken];
  const auth = await slackCall(deps, base, "auth.test", settings.botToken);
  if (!auth.ok) return fail(withoutSecrets(`SLACK_BOT_TOKEN: ${auth.error}`, secrets));
  const who = `${String(auth.body.user)} in workspace ${String(auth.body.team)}`;
  if (settings.appToken === undefined) return ok(`${who} (events over HTTP)`);
  const socket = await slackCall(deps, base, "apps.connections.open", settings.appToken);
  if (!socket.ok) return fail(withoutSecrets(`SLACK_APP_TOKEN: ${socket.error}`, secrets));
  return ok(`${who} (Socket Mode)`);
}

async function slackCall(deps: ProbeDeps, base: string, method: string, token: string): Promise<{ ok: true; body: Record<string, unknown> } | { ok: false; error: string }> {
  const answered = await request(deps, `${base}${method}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" } });
  if (!answered.ok) return { ok: false, error: `cannot reach the Slack API at ${base}: ${answered.error}` };
  const { response, body } = answered;
  if (response.ok && body?.ok === true) return { ok: true, body };
  const reason = typeof body?.error === "string" ? body.error : `${response.status} ${response.statusText}`;
  return { ok: false, error: `Slack refused it (${method}: ${reason})` };
}

type Answered = { ok: true; response: Response; body: Record<string, unknown> | undefined } | { ok: false; error: string };

async function request(deps: ProbeDeps, url: string, init: RequestInit): Promise<Answered> {
  try {
    const response = await deps.fetch(url, { ...init, signal: AbortSignal.timeout(deps.timeoutMs) });
    return { ok: true, response, body: await jsonBody(response) };
  } catch (error) {
    return { ok: false, error: describeRequestFailure(error, deps.timeoutMs) };
  }
}
