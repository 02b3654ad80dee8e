/**
 * A key setting may list several keys, comma-separated, to rotate through when one is rejected or out of quota.
 * Blank entries (a trailing comma, doubled commas) are ignored; the order is kept, the first is used first.
 */
export function parseApiKeys(value: string | undefined): string[] {
  if (value === undefined) return [];
  const keys = value.split(",").map((key) => key.trim()).filter((key) => key.length > 0);
  return [...new Set(keys)];
}

interface KeyedBinding {
  apiKey?: string;
  apiKeys?: readonly string[];
}

/**
 * The same binding on the key after the one in use, or undefined when no key is left. Keys are walked forward only,
 * so a run tries each key at most once and cannot loop between rejected keys.
 */
export function withNextApiKey<T extends KeyedBinding>(binding: T): T | undefined {
  const keys = binding.apiKeys ?? [];
  const at = binding.apiKey === undefined ? -1 : keys.indexOf(binding.apiKey);
  const next = keys[at + 1];
  return at >= 0 && next !== undefined ? { ...binding, apiKey: next } : undefined;
}

/** Every key value a binding may send, for masking in logs and messages. */
export function bindingSecrets(binding: KeyedBinding | undefined): string[] {
  if (!binding) return [];
  return [...new Set([binding.apiKey, ...(binding.apiKeys ?? [])].filter((key): key is string => typeof key === "string" && key.length > 0))];
}
