import { afterEach, beforeEach, describe, it, expect } from "vitest";
import { DEFAULT_CUSTOM_CONTEXT_WINDOW, resolveModel, type ModelResolution } from "./resolve.js";

// pi-ai reads Anthropic keys from these variables (the OAuth token first); tests set them explicitly.
const ANTHROPIC_KEY_VARIABLES = ["ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"] as const;
let savedEnv: Record<string, string | undefined>;

beforeEach(() => {
  savedEnv = Object.fromEntries(ANTHROPIC_KEY_VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of ANTHROPIC_KEY_VARIABLES) delete process.env[name];
});

afterEach(() => {
  for (const name of ANTHROPIC_KEY_VARIABLES) {
    const value = savedEnv[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

function binding(resolution: ModelResolution) {
  if (!resolution.ok) throw new Error(`expected a model, got the error: ${resolution.error}`);
  return resolution.binding;
}

function error(resolution: ModelResolution): string {
  if (resolution.ok) throw new Error(`expected an error, got the model ${resolution.binding.model.id}`);
  return resolution.error;
}

describe("resolveModel: custom endpoint", () => {
  it("describes an OpenAI-compatible model at the given base URL, without trailing slashes", () => {
    const { model, apiKey } = binding(resolveModel({ model: "llama3.1:8b", baseUrl: "http://127.0.0.1:11434/v1/" }));
    expect(model).toMatchObject({
      id: "llama3.1:8b",
      name: "llama3.1:8b",
      api: "openai-completions",
      provider: "custom",
      baseUrl: "http://127.0.0.1:11434/v1",
      input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    });
    expect(apiKey).toBe("not-needed");
  });

  it("removes several trailing slashes", () => {
    const { model } = binding(resolveModel({ model: "m", baseUrl: "https://llm.internal.example///" }));
    expect(model.baseUrl).toBe("https://llm.internal.example");
  });

  it("keeps a model id with slashes as the custom model's id", () => {
    const { model } = binding(resolveModel({ model: " meta-llama/Llama-3-8B ", baseUrl: "http://127.0.0.1:8000/v1" }));
    expect(model.id).toBe("meta-llama/Llama-3-8B");
  });

  it("defaults the context window and derives the output limit from it", () => {
    const { model } = binding(resolveModel({ model: "m", baseUrl: "http://127.0.0.1:8000/v1" }));
    expect(model.contextWindow).toBe(DEFAULT_CUSTOM_CONTEXT_WINDOW);
    expect(model.maxTokens).toBe(8_192);
  });

  it("takes the context window and output limit it is given", () => {
    const small = binding(resolveModel({ model: "m", baseUrl: "http://127.0.0.1:8000/v1", contextWindow: 16_000 }));
    expect(small.model.contextWindow).toBe(16_000);
    expect(small.model.maxTokens).toBe(4_000);

    const explicit = binding(
      resolveModel({ model: "m", baseUrl: "http://127.0.0.1:8000/v1", contextWindow: 32_768, maxTokens: 2_048 }),
    );
    expect(explicit.model.contextWindow).toBe(32_768);
    expect(explicit.model.maxTokens).toBe(2_048);
  });

  it("is free unless priced, and charges cache tokens as input", () => {
    expect(binding(resolveModel({ model: "m", baseUrl: "http://127.0.0.1:8000/v1" })).model.cost).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
    const priced = binding(resolveModel({ model: "m", baseUrl: "http://127.0.0.1:8000/v1", price: { input: 0.5, output: 1.5 } }));
    expect(priced.model.cost).toEqual({ input: 0.5, output: 1.5, cacheRead: 0.5, cacheWrite: 0.5 });
  });

  it("keeps pi-ai's prices for a catalogue model even when a price is given", () => {
    const listed = binding(resolveModel({ model: "anthropic/claude-sonnet-4-5", apiKey: "sk" })).model.cost;
    const given = binding(resolveModel({ model: "anthropic/claude-sonnet-4-5", apiKey: "sk", price: { input: 0, output: 0 } })).model.cost;
    expect(given).toEqual(listed);
    expect(listed.input).toBeGreaterThan(0);
  });

  it("takes text only from a custom endpoint unless told it sees images; a catalogue model knows its own input", () => {
    expect(binding(resolveModel({ model: "m", baseUrl: "http://127.0.0.1:8000/v1" })).model.input).toEqual(["text"]);
    expect(binding(resolveModel({ model: "m", baseUrl: "http://127.0.0.1:8000/v1", input: ["text", "image"] })).model.input).toEqual(["text", "image"]);
    expect(binding(resolveModel({ model: "anthropic/claude-sonnet-4-5", apiKey: "sk", input: ["text"] })).model.input).toContain("image");
  });

  it("uses the API key it is given, and a placeholder for an empty one", () => {
    expect(binding(resolveModel({ model: "m", baseUrl: "http://127.0.0.1:1/v1", apiKey: "sk-local" })).apiKey).toBe(
      "sk-local",
    );
    expect(binding(resolveModel({ model: "m", baseUrl: "http://127.0.0.1:1/v1", apiKey: "" })).apiKey).toBe(
      "not-needed",
    );
  });

  it("rejects a base URL that is not a URL", () => {
    const message = error(resolveModel({ model: "m", baseUrl: "localhost 11434" }));
    expect(message).toContain('"localhost 11434"');
    expect(message).toContain("not a valid URL");
  });

  it("rejects a base URL that is not http or https", () => {
    const message = error(resolveModel({ model: "m", baseUrl: "ftp://127.0.0.1/v1" }));
    expect(message).toContain('"ftp://127.0.0.1/v1"');
    expect(message).toContain("http:// or https://");
  });

  it("rejects an empty model name", () => {
    expect(error(resolveModel({ model: "   ", baseUrl: "http://127.0.0.1:1/v1" }))).toContain("empty");
    expect(error(resolveModel({ model: "" }))).toContain("empty");
  });
});

describe("resolveModel: catalogue", () => {
  it("finds a catalogue model and uses the API key it is given", () => {
    const { model, apiKey } = binding(resolveModel({ model: "anthropic/claude-sonnet-4-5", apiKey: "sk-explicit" }));
    expect(model.id).toBe("claude-sonnet-4-5");
    expect(model.provider).toBe("anthropic");
    expect(apiKey).toBe("sk-explicit");
  });

  it("prefers the given API key over one in the environment", () => {
    process.env["ANTHROPIC_API_KEY"] = "sk-from-env";
    const { apiKey } = binding(resolveModel({ model: "anthropic/claude-sonnet-4-5", apiKey: "sk-explicit" }));
    expect(apiKey).toBe("sk-explicit");
  });

  it("takes the API key from the provider's environment variable", () => {
    process.env["ANTHROPIC_API_KEY"] = "sk-from-env";
    const { model, apiKey } = binding(resolveModel({ model: "  anthropic/claude-sonnet-4-5  " }));
    expect(model.id).toBe("claude-sonnet-4-5");
    expect(apiKey).toBe("sk-from-env");
  });

  it("reports a missing API key naming the environment variable to set", () => {
    const resolution = resolveModel({ model: "anthropic/claude-sonnet-4-5" }, {});
    expect(resolution.ok).toBe(false);
    if (!resolution.ok) expect(resolution.error).toContain("ANTHROPIC_API_KEY");
  });

  it("finds the provider key in the environment it is given (e.g. from a .env file)", () => {
    const resolution = resolveModel({ model: "anthropic/claude-sonnet-4-5" }, { ANTHROPIC_API_KEY: "from-dotenv-key" });
    expect(resolution.ok && resolution.binding.apiKey).toBe("from-dotenv-key");
  });

  it("names the known providers for an unknown one", () => {
    const message = error(resolveModel({ model: "nosuchprovider/some-model", apiKey: "k" }));
    expect(message).toContain('unknown provider "nosuchprovider"');
    expect(message).toContain("anthropic");
  });

  it("suggests close model ids for an unknown model", () => {
    const message = error(resolveModel({ model: "anthropic/sonnet-4-5", apiKey: "k" }));
    expect(message).toContain('unknown model "sonnet-4-5" for provider anthropic');
    expect(message).toContain("Did you mean");
    expect(message).toContain("claude-sonnet-4-5");
  });

  it("says how many models the provider has when nothing is close", () => {
    const message = error(resolveModel({ model: "anthropic/zzz-not-a-model", apiKey: "k" }));
    expect(message).toContain('unknown model "zzz-not-a-model"');
    expect(message).not.toContain("Did you mean");
    expect(message).toMatch(/\d+ models are known for anthropic/);
  });

  it.each(["claude-sonnet-4-5", "/claude-sonnet-4-5", "anthropic/"])(
    "explains the provider/model-id form for %j",
    (spec) => {
      const message = error(resolveModel({ model: spec, apiKey: "k" }));
      expect(message).toContain(`"${spec}" is not of the form provider/model-id`);
      expect(message).toContain("HERMES_BASE_URL");
    },
  );
});

describe("resolveModel: wire protocol of a custom endpoint", () => {
  it("builds an OpenAI Responses model at the given base URL", () => {
    const { model } = binding(resolveModel({ model: "m", baseUrl: "http://127.0.0.1:8000/v1", api: "openai-responses" }));
    expect(model).toMatchObject({ api: "openai-responses", provider: "custom", baseUrl: "http://127.0.0.1:8000/v1" });
  });

  it("builds an Anthropic Messages model, trimming a /v1 the SDK adds itself", () => {
    const withV1 = binding(resolveModel({ model: "claude-local", baseUrl: "http://127.0.0.1:8000/v1/", api: "anthropic-messages" }));
    expect(withV1.model).toMatchObject({ api: "anthropic-messages", provider: "custom", baseUrl: "http://127.0.0.1:8000" });
    const bare = binding(resolveModel({ model: "claude-local", baseUrl: "http://127.0.0.1:8000/anthropic", api: "anthropic-messages" }));
    expect(bare.model.baseUrl).toBe("http://127.0.0.1:8000/anthropic");
  });

  it("defaults to OpenAI chat completions with the generic-server compat settings", () => {
    const { model } = binding(resolveModel({ model: "m", baseUrl: "http://127.0.0.1:8000/v1" }));
    expect(model).toMatchObject({ api: "openai-completions", compat: { supportsStore: false, maxTokensField: "max_tokens" } });
  });
});

describe("resolveModel: several API keys", () => {
  it("uses the first of comma-separated keys and keeps all of them, in order, for rotation", () => {
    const resolved = binding(resolveModel({ model: "m", baseUrl: "http://127.0.0.1:1/v1", apiKey: " sk-one , sk-two,, sk-three," }));
    expect(resolved.apiKey).toBe("sk-one");
    expect(resolved.apiKeys).toEqual(["sk-one", "sk-two", "sk-three"]);
  });

  it("lists no rotation for a single key", () => {
    const resolved = binding(resolveModel({ model: "m", baseUrl: "http://127.0.0.1:1/v1", apiKey: "sk-only" }));
    expect(resolved.apiKeys).toBeUndefined();
  });

  it("splits the provider's own variable too", () => {
    const resolved = binding(resolveModel({ model: "anthropic/claude-sonnet-4-5" }, { ANTHROPIC_API_KEY: "sk-a,sk-b" }));
    expect(resolved.apiKey).toBe("sk-a");
    expect(resolved.apiKeys).toEqual(["sk-a", "sk-b"]);
  });

  it("treats a key setting of commas only as no key", () => {
    expect(error(resolveModel({ model: "anthropic/claude-sonnet-4-5", apiKey: " , " }, {}))).toContain("ANTHROPIC_API_KEY");
  });
});
