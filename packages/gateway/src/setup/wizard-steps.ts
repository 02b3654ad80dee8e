import { PROVIDER_KEY_VARIABLES, type CustomApi } from "@hermes/agent";
import type { ProbeDeps, ProbeResult } from "./probe-result.js";
import type { SetupPrompter } from "./prompter.js";
import { checkSetupPart, type SetupAnswers, type SetupContext, type SetupPart } from "./setup-answers.js";

export const CANCELLED = Symbol("cancelled");
export type Step<T> = T | undefined | typeof CANCELLED;

export interface WizardDeps {
  prompter: SetupPrompter;
  context: SetupContext;
  probe: ProbeDeps;
}

const required = (what: string) => (value: string): string | undefined => (value.trim() === "" ? `Enter ${what}.` : undefined);

/**
 * Asks for one part until its online check passes, or the operator keeps it anyway or skips it; the same check
 * functions as `hermes doctor`.
 */
async function askChecked<T>(deps: WizardDeps, part: SetupPart, ask: () => Promise<Step<T>>, toAnswers: (value: T) => SetupAnswers): Promise<Step<T>> {
  for (;;) {
    const value = await ask();
    if (value === CANCELLED || value === undefined) return value;
    const result: ProbeResult = await deps.prompter.during(`Checking ${part}…`, () => checkSetupPart(part, toAnswers(value), deps.context, deps.probe));
    if (result.status !== "fail") {
      deps.prompter.success(`${part}: ${result.detail}`);
      return value;
    }
    deps.prompter.warn(`${part}: ${result.detail}`);
    const next = await deps.prompter.select({
      message: `The ${part} check failed. What now?`,
      options: [
        { value: "again", label: "Enter it again" },
        { value: "keep", label: "Save it anyway" },
        { value: "skip", label: `Leave ${part} as it is` },
      ],
    });
    if (next === undefined) return CANCELLED;
    if (next === "keep") return value;
    if (next === "skip") return undefined;
  }
}

export async function askModel(deps: WizardDeps): Promise<Step<NonNullable<SetupAnswers["model"]>>> {
  const { prompter, context } = deps;
  const current = context.currentModel ? `${context.currentModel}${context.currentBaseUrl ? ` at ${context.currentBaseUrl}` : ""}${context.currentBaseUrl && context.currentApi ? ` (${context.currentApi})` : ""}` : undefined;
  const kind = await prompter.select({
    message: "Which model should answer?",
    options: [
      { value: "hosted", label: "A hosted model", hint: "Anthropic, OpenAI, Google, OpenRouter, …" },
      { value: "custom", label: "My own server or a proxy", hint: "Ollama, vLLM, LM Studio, an Anthropic-compatible proxy, …" },
      ...(current ? [{ value: "keep" as const, label: `Keep ${current}` }] : []),
    ],
  });
  if (kind === undefined) return CANCELLED;
  if (kind === "keep") return undefined;
  const ask = kind === "hosted" ? () => askHostedModel(prompter, context) : () => askCustomModel(prompter, context);
  return askChecked(deps, "model", ask, (model) => ({ model }));
}

async function askHostedModel(prompter: SetupPrompter, context: SetupContext): Promise<Step<NonNullable<SetupAnswers["model"]>>> {
  const model = await prompter.text({
    message: "Model (provider/model-id)",
    placeholder: "anthropic/claude-sonnet-4-5",
    initialValue: context.currentBaseUrl ? undefined : context.currentModel,
    validate: (value) => (/^[^/\s]+\/\S+$/.test(value.trim()) ? undefined : "Write it as provider/model-id, e.g. anthropic/claude-sonnet-4-5."),
  });
  if (model === undefined) return CANCELLED;
  const provider = model.trim().split("/")[0] ?? "";
  const variables = PROVIDER_KEY_VARIABLES[provider] ?? [];
  const known = variables.some((name) => context.providerKeys[name]);
  const label = variables[0] ?? "HERMES_API_KEY";
  const key = await prompter.password({ message: `API key (${label})${known ? " — leave empty to keep the one already set" : ""}` });
  if (key === undefined) return CANCELLED;
  return { model: model.trim(), ...(key.trim() !== "" && { apiKey: key.trim() }) };
}

async function askCustomModel(prompter: SetupPrompter, context: SetupContext): Promise<Step<NonNullable<SetupAnswers["model"]>>> {
  const baseUrl = await prompter.text({
    message: "Server URL (an OpenAI-compatible one usually ends in /v1)",
    initialValue: context.currentBaseUrl ?? "http://127.0.0.1:11434/v1",
    validate: (value) => (/^https?:\/\/\S+$/.test(value.trim()) ? undefined : "Enter an http:// or https:// URL."),
  });
  if (baseUrl === undefined) return CANCELLED;
  const api = await prompter.select<CustomApi>({
    message: "Which API does the server speak? (HERMES_API)",
    options: [
      { value: "openai-completions", label: "OpenAI Chat Completions", hint: "Ollama, vLLM, LM Studio, most proxies" },
      { value: "openai-responses", label: "OpenAI Responses" },
      { value: "anthropic-messages", label: "Anthropic Messages", hint: "Anthropic-compatible servers and proxies" },
    ],
    initialValue: (context.currentBaseUrl && context.currentApi) || "openai-completions",
  });
  if (api === undefined) return CANCELLED;
  const model = await prompter.text({ message: "Model id the server serves", placeholder: "llama3.1", initialValue: context.currentBaseUrl ? context.currentModel : undefined, validate: required("the model id") });
  if (model === undefined) return CANCELLED;
  const key = await prompter.password({ message: "API key (HERMES_API_KEY) — leave empty if the server needs none" });
  if (key === undefined) return CANCELLED;
  return { model: model.trim(), baseUrl: baseUrl.trim(), api, ...(key.trim() !== "" && { apiKey: key.trim() }) };
}

export async function askTelegram(deps: WizardDeps): Promise<Step<NonNullable<SetupAnswers["telegram"]>>> {
  const ask = async (): Promise<Step<{ token: string }>> => {
    const token = await deps.prompter.password({ message: "Telegram bot token (from @BotFather)", validate: required("the token") });
    return token === undefined ? CANCELLED : { token: token.trim() };
  };
  return askChecked(deps, "telegram", ask, (telegram) => ({ telegram }));
}

export async function askDiscord(deps: WizardDeps): Promise<Step<NonNullable<SetupAnswers["discord"]>>> {
  const ask = async (): Promise<Step<{ token: string }>> => {
    const token = await deps.prompter.password({ message: "Discord bot token (Developer Portal → Bot)", validate: required("the token") });
    return token === undefined ? CANCELLED : { token: token.trim() };
  };
  return askChecked(deps, "discord", ask, (discord) => ({ discord }));
}

export async function askSlack(deps: WizardDeps): Promise<Step<NonNullable<SetupAnswers["slack"]>>> {
  const { prompter } = deps;
  const ask = async (): Promise<Step<NonNullable<SetupAnswers["slack"]>>> => {
    const botToken = await prompter.password({ message: "Slack bot token (xoxb-…)", validate: required("the bot token") });
    if (botToken === undefined) return CANCELLED;
    const mode = await prompter.select({
      message: "How should Slack reach the bot?",
      options: [
        { value: "socket", label: "Socket Mode", hint: "no public URL needed; an app-level token xapp-…" },
        { value: "http", label: "Events over HTTP", hint: "POST /slack/events; the signing secret" },
      ],
    });
    if (mode === undefined) return CANCELLED;
    if (mode === "socket") {
      const appToken = await prompter.password({ message: "Slack app-level token (xapp-…)", validate: (value) => (value.trim().startsWith("xapp-") ? undefined : "An app-level token starts with xapp-.") });
      return appToken === undefined ? CANCELLED : { botToken: botToken.trim(), appToken: appToken.trim() };
    }
    const signingSecret = await prompter.password({ message: "Slack signing secret (Basic Information page)", validate: required("the signing secret") });
    return signingSecret === undefined ? CANCELLED : { botToken: botToken.trim(), signingSecret: signingSecret.trim() };
  };
  return askChecked(deps, "slack", ask, (slack) => ({ slack }));
}

export async function askRedis(deps: WizardDeps): Promise<Step<string>> {
  const wanted = await deps.prompter.confirm({ message: "Run the agent on separate worker processes through Redis (BullMQ)? Most set-ups do not need this.", initialValue: false });
  if (wanted === undefined) return CANCELLED;
  if (!wanted) return undefined;
  const ask = async (): Promise<Step<string>> => {
    const url = await deps.prompter.text({ message: "Redis URL", initialValue: "redis://127.0.0.1:6379", validate: (value) => (/^rediss?:\/\/\S+$/.test(value.trim()) ? undefined : "Enter a redis:// or rediss:// URL.") });
    return url === undefined ? CANCELLED : url.trim();
  };
  return askChecked(deps, "redis", ask, (redisUrl) => ({ redisUrl }));
}
