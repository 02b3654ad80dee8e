import { resolveModel, type CustomApi } from "@hermes/agent";
import { complete, getModels, getProviders, type Api, type KnownProvider, type Model } from "@mariozechner/pi-ai";
import { didYouMean } from "./did-you-mean.js";
import { fail, ok, withoutSecrets, type ProbeDeps, type ProbeResult } from "./probe-result.js";
import { servedModels } from "./served-models.js";

export interface ModelProbeInput {
  /** `provider/model-id`, or with `baseUrl` the id the endpoint serves. */
  readonly model: string;
  readonly baseUrl?: string;
  /** The protocol `baseUrl` speaks (HERMES_API); openai-completions when absent. */
  readonly api?: CustomApi;
  /** One key, or several comma-separated ones (the probe uses the first, as a run does). */
  readonly apiKey?: string;
  readonly contextWindow?: number;
  /** Provider keys by variable name (ANTHROPIC_API_KEY, …) from the environment, .env and config.yaml. */
  readonly providerKeys: Readonly<Record<string, string>>;
}

// A few tokens, not one: some APIs (OpenAI Responses) refuse an output limit below 16.
const PROBE_MAX_TOKENS = 16;

/**
 * Asks the configured model for a tiny answer through pi-ai, on the model object the gateway itself builds (so over
 * the configured protocol), so a wrong id, key or address shows now rather than in a chat.
 */
export async function probeModel(input: ModelProbeInput, deps: ProbeDeps): Promise<ProbeResult> {
  if (!input.baseUrl) {
    const unknown = unknownCatalogModel(input.model.trim());
    if (unknown) return fail(unknown);
  }
  const resolved = resolveModel({ model: input.model, baseUrl: input.baseUrl, api: input.api, apiKey: input.apiKey, contextWindow: input.contextWindow }, input.providerKeys);
  if (!resolved.ok) return fail(resolved.error);
  const binding = resolved.binding;
  const secrets = [input.apiKey, binding.apiKey, ...(binding.apiKeys ?? []), ...Object.values(input.providerKeys)];
  const where = input.baseUrl ? ` at ${binding.model.baseUrl}` : "";
  const name = input.baseUrl ? binding.model.id : `${binding.model.provider}/${binding.model.id}`;
  if (input.baseUrl) {
    const served = await servedModels(binding, deps);
    if (!served.ok) return fail(withoutSecrets(served.error, secrets));
    if (served.ids && !served.ids.includes(binding.model.id)) {
      const hint = didYouMean(binding.model.id, served.ids) || ` It serves: ${served.ids.join(", ") || "no models"}.`;
      return fail(`"${binding.model.id}" is not served${where}.${hint}`);
    }
  }
  const answer = await complete(binding.model, { messages: [{ role: "user", content: "Reply with OK.", timestamp: Date.now() }] }, {
    apiKey: binding.apiKey,
    maxTokens: PROBE_MAX_TOKENS,
    maxRetries: 0,
    timeoutMs: deps.timeoutMs,
    signal: AbortSignal.timeout(deps.timeoutMs),
  });
  if (answer.stopReason === "aborted") return fail(`${name}${where}: no answer within ${deps.timeoutMs / 1000} s`);
  if (answer.stopReason === "error") return fail(withoutSecrets(`${name}${where}: ${answer.errorMessage ?? "the request failed"}`, secrets));
  const protocol = input.baseUrl ? `${binding.model.api}, ` : "";
  return ok(`${name}${where} answers (${protocol}context ${binding.model.contextWindow.toLocaleString("en-US")} tokens)`);
}

/** For `provider/model-id`: a message with suggestions when the provider or the id is not in pi-ai's catalogue. */
function unknownCatalogModel(spec: string): string | undefined {
  const slash = spec.indexOf("/");
  if (slash <= 0) return undefined;
  const provider = spec.slice(0, slash);
  const id = spec.slice(slash + 1);
  const providers: readonly string[] = getProviders();
  if (!providers.includes(provider)) {
    const hint = didYouMean(provider, providers) || ` Known providers: ${providers.join(", ")}.`;
    return `unknown provider "${provider}".${hint} For a model served by your own endpoint also set HERMES_BASE_URL (and HERMES_API if it is not OpenAI-compatible).`;
  }
  const ids = (getModels(provider as KnownProvider) as Model<Api>[]).map((model) => model.id);
  if (ids.includes(id)) return undefined;
  const hint = didYouMean(id, ids).replace(/"([^"]+)"/g, (_, match: string) => `"${provider}/${match}"`);
  return `unknown model "${id}" for provider ${provider}.${hint || ` ${ids.length} models are known for ${provider}.`}`;
}
