import { getModels, getProviders, type Api, type KnownProvider, type Model } from "@mariozechner/pi-ai";
import type { ModelBinding } from "../loop/model-call.js";
import { parseApiKeys } from "./api-keys.js";
import { customModel, type CustomApi, type ModelInputKind, type ModelPrice } from "./custom-model.js";
import { findProviderKey } from "./provider-keys.js";

export interface ModelRequest {
  /** `provider/model-id` from pi-ai's catalogue, or (with `baseUrl`) the id a custom endpoint serves. */
  model: string;
  /** A custom endpoint (Ollama, vLLM, LM Studio, a proxy, a test server), e.g. http://127.0.0.1:11434/v1 */
  baseUrl?: string;
  /** The wire protocol the custom endpoint speaks (default openai-completions). */
  api?: CustomApi;
  /** One key, or several comma-separated keys to rotate through. */
  apiKey?: string;
  /** Context window of a custom endpoint model (default 128000). */
  contextWindow?: number;
  maxTokens?: number;
  /** Price of a custom endpoint model (HERMES_MODEL_PRICE); a catalogue model keeps pi-ai's prices. */
  price?: ModelPrice;
  /** What a custom endpoint model accepts (HERMES_MODEL_INPUT, default text only); a catalogue model knows its own. */
  input?: readonly ModelInputKind[];
}

export type ModelResolution = { ok: true; binding: ModelBinding } | { ok: false; error: string };

export const DEFAULT_CUSTOM_CONTEXT_WINDOW = 128_000;

/** `env` is where provider keys are looked up when `apiKey` is not given (process env, .env and config.yaml merged). */
export function resolveModel(
  request: ModelRequest,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ModelResolution {
  const id = request.model.trim();
  if (id.length === 0) return { ok: false, error: "the model name is empty" };
  if (request.baseUrl) return resolveCustom(id, request);
  return resolveCatalog(id, request, env);
}

function resolveCustom(id: string, request: ModelRequest): ModelResolution {
  const baseUrl = (request.baseUrl ?? "").replace(/\/+$/, "");
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return { ok: false, error: `"${request.baseUrl}" is not a valid URL` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, error: `"${request.baseUrl}" must be an http:// or https:// URL` };
  }
  const contextWindow = request.contextWindow ?? DEFAULT_CUSTOM_CONTEXT_WINDOW;
  const model = customModel({
    id,
    api: request.api ?? "openai-completions",
    baseUrl,
    contextWindow,
    maxTokens: request.maxTokens ?? Math.min(8_192, Math.floor(contextWindow / 4)),
    ...(request.price !== undefined && { price: request.price }),
    ...(request.input !== undefined && { input: request.input }),
  });
  // Servers that need no key still expect the header to be present.
  const keys = parseApiKeys(request.apiKey);
  return { ok: true, binding: withKeys(model, keys.length > 0 ? keys : ["not-needed"]) };
}

function withKeys(model: Model<Api>, keys: readonly string[]): ModelBinding {
  const [first] = keys;
  if (first === undefined) return { model };
  return keys.length > 1 ? { model, apiKey: first, apiKeys: keys } : { model, apiKey: first };
}

function resolveCatalog(spec: string, request: ModelRequest, env: Readonly<Record<string, string | undefined>>): ModelResolution {
  const slash = spec.indexOf("/");
  if (slash <= 0 || slash === spec.length - 1) {
    return {
      ok: false,
      error: `"${spec}" is not of the form provider/model-id (e.g. anthropic/claude-sonnet-4-5); for a model served by your own OpenAI-compatible endpoint also set HERMES_BASE_URL`,
    };
  }
  const provider = spec.slice(0, slash);
  const modelId = spec.slice(slash + 1);
  const providers = getProviders();
  if (!providers.includes(provider as KnownProvider)) {
    return { ok: false, error: `unknown provider "${provider}". Known providers: ${providers.join(", ")}` };
  }
  const models = getModels(provider as KnownProvider) as Model<Api>[];
  const model = models.find((m) => m.id === modelId);
  if (!model) {
    const close = models.filter((m) => m.id.includes(modelId) || modelId.includes(m.id)).slice(0, 5).map((m) => m.id);
    const hint = close.length > 0 ? ` Did you mean: ${close.join(", ")}?` : ` ${models.length} models are known for ${provider}.`;
    return { ok: false, error: `unknown model "${modelId}" for provider ${provider}.${hint}` };
  }
  const found = findProviderKey(provider, env);
  const given = parseApiKeys(request.apiKey);
  const keys = given.length > 0 ? given : parseApiKeys(found.key);
  if (keys.length === 0 && found.variables.length > 0) {
    return { ok: false, error: `no API key for ${provider}: set ${found.variables.join(" or ")} (or HERMES_API_KEY)` };
  }
  return { ok: true, binding: withKeys(model, keys) };
}
