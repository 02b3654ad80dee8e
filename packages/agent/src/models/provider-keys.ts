/**
 * Environment variables holding each provider's API key, in order of preference. pi-ai reads the same names from
 * process.env; keeping the list here lets keys also come from a .env file or config.yaml, and lets a missing key be
 * reported by name before any request is made. Providers absent here authenticate another way (cloud credentials,
 * OAuth logins) and are not checked.
 */
export const PROVIDER_KEY_VARIABLES: Readonly<Record<string, readonly string[]>> = {
  anthropic: ["ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN"],
  openai: ["OPENAI_API_KEY"],
  "azure-openai-responses": ["AZURE_OPENAI_API_KEY"],
  deepseek: ["DEEPSEEK_API_KEY"],
  google: ["GEMINI_API_KEY"],
  groq: ["GROQ_API_KEY"],
  cerebras: ["CEREBRAS_API_KEY"],
  xai: ["XAI_API_KEY"],
  openrouter: ["OPENROUTER_API_KEY"],
  "vercel-ai-gateway": ["AI_GATEWAY_API_KEY"],
  zai: ["ZAI_API_KEY"],
  mistral: ["MISTRAL_API_KEY"],
  minimax: ["MINIMAX_API_KEY"],
  "minimax-cn": ["MINIMAX_CN_API_KEY"],
  moonshotai: ["MOONSHOT_API_KEY"],
  "moonshotai-cn": ["MOONSHOT_API_KEY"],
  huggingface: ["HF_TOKEN"],
  fireworks: ["FIREWORKS_API_KEY"],
  opencode: ["OPENCODE_API_KEY"],
  "opencode-go": ["OPENCODE_API_KEY"],
  "kimi-coding": ["KIMI_API_KEY"],
  "cloudflare-workers-ai": ["CLOUDFLARE_API_KEY"],
  "cloudflare-ai-gateway": ["CLOUDFLARE_API_KEY"],
  xiaomi: ["XIAOMI_API_KEY"],
};

/** Every variable name that may hold a provider key. */
export const PROVIDER_KEY_NAMES: ReadonlySet<string> = new Set(Object.values(PROVIDER_KEY_VARIABLES).flat());

/** The first key found for a provider in `env`, with the variable it came from. */
export function findProviderKey(
  provider: string,
  env: Readonly<Record<string, string | undefined>>,
): { variables: readonly string[]; key?: string } {
  const variables = PROVIDER_KEY_VARIABLES[provider] ?? [];
  for (const name of variables) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") return { variables, key: value.trim() };
  }
  return { variables };
}
