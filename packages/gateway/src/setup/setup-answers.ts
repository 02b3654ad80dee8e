import os from "node:os";
import { isCustomApi, PROVIDER_KEY_NAMES, PROVIDER_KEY_VARIABLES, type CustomApi } from "@hermes/agent";
import { DEFAULT_TELEGRAM_API_ROOT } from "../config/platforms.js";
import { readConfigSources } from "../config/sources.js";
import type { ConfigUpdates } from "./config-file.js";
import { probeModel } from "./model-probe.js";
import { probeDiscord, probeSlack, probeTelegram } from "./platform-probes.js";
import { ok, type ProbeDeps, type ProbeResult } from "./probe-result.js";
import { probeRedis } from "./redis-probe.js";

/** What the operator chose in `hermes setup` (wizard or options); absent parts stay as configured. */
export interface SetupAnswers {
  /** `api` is the protocol of `baseUrl` (HERMES_API); absent means openai-completions. */
  readonly model?: { readonly model: string; readonly baseUrl?: string; readonly api?: CustomApi; readonly apiKey?: string };
  readonly telegram?: { readonly token: string };
  readonly discord?: { readonly token: string };
  readonly slack?: { readonly botToken: string; readonly appToken?: string; readonly signingSecret?: string };
  readonly redisUrl?: string;
}

export type SetupPart = "model" | "telegram" | "discord" | "slack" | "redis";

/** The settings the answers are checked against: API roots (stand-ins, proxies) and keys already configured. */
export interface SetupContext {
  readonly telegramApiRoot: string;
  readonly discordApiUrl?: string;
  readonly slackApiUrl?: string;
  readonly contextWindow?: number;
  readonly providerKeys: Readonly<Record<string, string>>;
  /** Settings set in the environment or .env, which win over config.yaml. */
  readonly overriddenByEnvironment: ReadonlySet<string>;
  /** The model configured now, if any. */
  readonly currentModel?: string;
  readonly currentBaseUrl?: string;
  readonly currentApi?: CustomApi;
  readonly currentApiKey?: string;
}

/** Reads the current raw settings (valid or not: the setup is how one repairs them). */
export async function readSetupContext(options: { env: Readonly<Record<string, string | undefined>>; cwd: string }): Promise<SetupContext> {
  const sources = await readConfigSources({ env: options.env, cwd: options.cwd, homeDir: os.homedir() });
  const text = (name: Parameters<typeof sources.values.get>[0]): string | undefined => sources.values.get(name)?.text;
  const overridden = new Set<string>();
  for (const [name, value] of sources.values) if (!value.origin?.includes("config.yaml")) overridden.add(name);
  const contextWindow = Number(text("HERMES_CONTEXT_WINDOW"));
  const api = text("HERMES_API");
  return {
    telegramApiRoot: text("TELEGRAM_API_ROOT") ?? DEFAULT_TELEGRAM_API_ROOT,
    discordApiUrl: text("DISCORD_API_URL"),
    slackApiUrl: text("SLACK_API_URL"),
    ...(Number.isInteger(contextWindow) && contextWindow > 0 && { contextWindow }),
    providerKeys: sources.providerKeys,
    overriddenByEnvironment: overridden,
    currentModel: text("HERMES_MODEL"),
    currentBaseUrl: text("HERMES_BASE_URL"),
    ...(api !== undefined && isCustomApi(api) && { currentApi: api }),
    currentApiKey: text("HERMES_API_KEY"),
  };
}

/** The variable a hosted provider's key is saved under (HERMES_API_KEY for a custom endpoint or a provider without one). */
export function apiKeyVariable(model: { model: string; baseUrl?: string }): string {
  if (model.baseUrl) return "HERMES_API_KEY";
  const provider = model.model.slice(0, Math.max(0, model.model.indexOf("/")));
  return PROVIDER_KEY_VARIABLES[provider]?.[0] ?? "HERMES_API_KEY";
}

/** config.yaml changes for the answers; config keys are the environment variable names. */
export function configUpdatesFor(answers: SetupAnswers): ConfigUpdates {
  const updates = new Map<string, string | null>();
  if (answers.model) {
    const { model, baseUrl, api, apiKey } = answers.model;
    updates.set("HERMES_MODEL", model);
    // A base URL left behind would make a hosted model's id be read as a custom endpoint's.
    updates.set("HERMES_BASE_URL", baseUrl ?? null);
    // The protocol is saved as checked: an old one left behind would make the gateway speak another than the check did.
    updates.set("HERMES_API", baseUrl && api ? api : null);
    if (apiKey !== undefined) {
      const variable = apiKeyVariable(answers.model);
      updates.set(variable, apiKey);
      // HERMES_API_KEY wins over a provider's key; an old one must not shadow the new key.
      if (variable !== "HERMES_API_KEY") updates.set("HERMES_API_KEY", null);
    }
  }
  if (answers.telegram) updates.set("TELEGRAM_BOT_TOKEN", answers.telegram.token);
  if (answers.discord) updates.set("DISCORD_BOT_TOKEN", answers.discord.token);
  if (answers.slack) {
    updates.set("SLACK_BOT_TOKEN", answers.slack.botToken);
    if (answers.slack.appToken !== undefined) updates.set("SLACK_APP_TOKEN", answers.slack.appToken);
    if (answers.slack.signingSecret !== undefined) updates.set("SLACK_SIGNING_SECRET", answers.slack.signingSecret);
  }
  if (answers.redisUrl !== undefined) updates.set("REDIS_URL", answers.redisUrl);
  return updates;
}

/**
 * One line, when settings just saved to config.yaml will not be used: the environment and .env win over it, and
 * HERMES_API_KEY wins over a provider's own key. Names only, never values.
 */
export function shadowedSettingsNote(updates: ConfigUpdates, context: Pick<SetupContext, "overriddenByEnvironment">): string | undefined {
  const saved = [...updates].filter(([, value]) => value !== null).map(([name]) => name);
  const notes: string[] = [];
  const sameName = saved.filter((name) => context.overriddenByEnvironment.has(name));
  if (sameName.length > 0) notes.push(`also set in the environment or .env, which win over config.yaml: ${sameName.join(", ")}`);
  const providerKey = saved.find((name) => PROVIDER_KEY_NAMES.has(name));
  if (providerKey !== undefined && context.overriddenByEnvironment.has("HERMES_API_KEY")) {
    notes.push(`HERMES_API_KEY set in the environment or .env wins over the saved ${providerKey}; unset it there for the saved key to be used`);
  }
  return notes.length > 0 ? notes.join("; ") : undefined;
}

/** Checks one part of the answers online, exactly as `hermes doctor` checks the saved settings. */
export function checkSetupPart(part: SetupPart, answers: SetupAnswers, context: SetupContext, deps: ProbeDeps): Promise<ProbeResult> {
  switch (part) {
    case "model": {
      const model = answers.model;
      if (!model) return Promise.resolve(ok("unchanged"));
      const apiKey = model.apiKey ?? context.currentApiKey;
      return probeModel({ ...model, apiKey, contextWindow: context.contextWindow, providerKeys: context.providerKeys }, deps);
    }
    case "telegram":
      return answers.telegram ? probeTelegram({ token: answers.telegram.token, apiRoot: context.telegramApiRoot }, deps) : Promise.resolve(ok("unchanged"));
    case "discord":
      return answers.discord ? probeDiscord({ token: answers.discord.token, apiUrl: context.discordApiUrl }, deps) : Promise.resolve(ok("unchanged"));
    case "slack":
      return answers.slack ? probeSlack({ ...answers.slack, apiUrl: context.slackApiUrl }, deps) : Promise.resolve(ok("unchanged"));
    case "redis":
      return answers.redisUrl ? probeRedis(answers.redisUrl, deps) : Promise.resolve(ok("unchanged"));
  }
}

/** The parts the answers set, in the order they are checked and shown. */
export function answeredParts(answers: SetupAnswers): SetupPart[] {
  const parts: SetupPart[] = [];
  if (answers.model) parts.push("model");
  if (answers.telegram) parts.push("telegram");
  if (answers.discord) parts.push("discord");
  if (answers.slack) parts.push("slack");
  if (answers.redisUrl !== undefined) parts.push("redis");
  return parts;
}
