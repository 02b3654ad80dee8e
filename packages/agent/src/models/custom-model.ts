import type { Api, Model } from "@mariozechner/pi-ai";

/** Wire protocols a custom endpoint may speak: the pi-ai APIs that reach a self-hosted or proxied server by URL. */
export const CUSTOM_APIS = ["openai-completions", "openai-responses", "anthropic-messages"] as const;
export type CustomApi = (typeof CUSTOM_APIS)[number];

export function isCustomApi(value: string): value is CustomApi {
  return (CUSTOM_APIS as readonly string[]).includes(value);
}

export interface CustomModelSpec {
  id: string;
  api: CustomApi;
  /** Validated http(s) URL without trailing slashes. */
  baseUrl: string;
  contextWindow: number;
  maxTokens: number;
  /** USD per million tokens; unknown to us otherwise, so free. */
  price?: ModelPrice;
  /** What the model takes in (HERMES_MODEL_INPUT); a server says nothing about it, so text unless the operator says so. */
  input?: readonly ModelInputKind[];
}

/** Kinds of content a model accepts, as pi-ai's `Model.input` names them. */
export type ModelInputKind = "text" | "image";
export const MODEL_INPUT_KINDS = ["text", "image"] as const satisfies readonly ModelInputKind[];

/** What a model costs in USD per million input and output tokens (cache reads and writes are priced as input). */
export interface ModelPrice {
  input: number;
  output: number;
}

/** The pi-ai model object for a model served at a custom endpoint, shaped for the protocol it speaks. */
export function customModel(spec: CustomModelSpec): Model<Api> {
  const common = {
    id: spec.id,
    name: spec.id,
    provider: "custom",
    reasoning: false,
    input: spec.input?.includes("image") ? (["text", "image"] as ModelInputKind[]) : (["text"] as ModelInputKind[]),
    cost: costOf(spec.price),
    contextWindow: spec.contextWindow,
    maxTokens: spec.maxTokens,
  };
  switch (spec.api) {
    case "openai-completions": {
      // Generic servers (Ollama, vLLM, LM Studio) reject `store`, the developer role and `max_completion_tokens`.
      const model: Model<"openai-completions"> = {
        ...common,
        api: "openai-completions",
        baseUrl: spec.baseUrl,
        compat: { supportsStore: false, supportsDeveloperRole: false, maxTokensField: "max_tokens" },
      };
      return model;
    }
    case "openai-responses": {
      // Only OpenAI itself keeps prompts for 24 hours or routes by a session header.
      const model: Model<"openai-responses"> = {
        ...common,
        api: "openai-responses",
        baseUrl: spec.baseUrl,
        compat: { sendSessionIdHeader: false, supportsLongCacheRetention: false },
      };
      return model;
    }
    case "anthropic-messages": {
      // The Anthropic SDK appends /v1/messages itself, so a base URL written like an OpenAI one (…/v1) is trimmed.
      const model: Model<"anthropic-messages"> = {
        ...common,
        api: "anthropic-messages",
        baseUrl: spec.baseUrl.replace(/\/v1$/, ""),
        compat: { supportsLongCacheRetention: false },
      };
      return model;
    }
  }
}

function costOf(price: ModelPrice | undefined): Model<Api>["cost"] {
  if (price === undefined) return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  return { input: price.input, output: price.output, cacheRead: price.input, cacheWrite: price.input };
}
