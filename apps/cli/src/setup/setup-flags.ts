import { CUSTOM_APIS, isCustomApi } from "@hermes/agent";
import type { SetupAnswers } from "@hermes/gateway";
import { booleanOption, stringOption, type OptionValues } from "../cli/command-spec.js";

export type FlagAnswers = { ok: true; answers: SetupAnswers; given: boolean } | { ok: false; problem: string };

const VALUE_FLAGS = ["model", "base-url", "api", "api-key", "telegram-token", "discord-token", "slack-bot-token", "slack-app-token", "slack-signing-secret", "redis-url"] as const;

/** The answers the options give; `given` is false when no value option was passed at all. */
export function answersFromFlags(values: OptionValues): FlagAnswers {
  const get = (name: (typeof VALUE_FLAGS)[number]): string | undefined => {
    const value = stringOption(values, name)?.trim();
    return value === "" ? undefined : value;
  };
  const given = VALUE_FLAGS.some((name) => stringOption(values, name) !== undefined) || booleanOption(values, "yes");
  for (const name of VALUE_FLAGS) if (stringOption(values, name) !== undefined && get(name) === undefined) return { ok: false, problem: `--${name} needs a value.` };
  const model = get("model");
  const baseUrl = get("base-url");
  const api = get("api");
  const apiKey = get("api-key");
  if (!model && (baseUrl || api || apiKey)) return { ok: false, problem: "--base-url, --api and --api-key go with --model." };
  if (api !== undefined && !isCustomApi(api)) return { ok: false, problem: `--api must be one of ${CUSTOM_APIS.join(", ")} (got "${api}").` };
  if (api !== undefined && !baseUrl) return { ok: false, problem: "--api goes with --base-url: a hosted model's protocol is known." };
  if (model && !baseUrl && !model.includes("/")) return { ok: false, problem: `--model "${model}" needs the form provider/model-id, or --base-url for a model served by your own endpoint.` };
  const slackBotToken = get("slack-bot-token");
  const appToken = get("slack-app-token");
  const signingSecret = get("slack-signing-secret");
  if (!slackBotToken && (appToken || signingSecret)) return { ok: false, problem: "--slack-app-token and --slack-signing-secret go with --slack-bot-token." };
  if (slackBotToken && !appToken && !signingSecret) return { ok: false, problem: "--slack-bot-token needs --slack-app-token (Socket Mode) or --slack-signing-secret (events over HTTP)." };
  if (appToken && !appToken.startsWith("xapp-")) return { ok: false, problem: "--slack-app-token must start with xapp- (an app-level token)." };
  const redisUrl = get("redis-url");
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) return { ok: false, problem: "--redis-url must be a redis:// or rediss:// URL." };
  const telegramToken = get("telegram-token");
  const discordToken = get("discord-token");
  const answers: SetupAnswers = {
    ...(model && { model: { model, ...(baseUrl && { baseUrl }), ...(api && { api }), ...(apiKey && { apiKey }) } }),
    ...(telegramToken && { telegram: { token: telegramToken } }),
    ...(discordToken && { discord: { token: discordToken } }),
    ...(slackBotToken && { slack: { botToken: slackBotToken, ...(appToken && { appToken }), ...(signingSecret && { signingSecret }) } }),
    ...(redisUrl && { redisUrl }),
  };
  return { ok: true, answers, given };
}
