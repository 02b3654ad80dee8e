import { resolveModel, type ModelResolution } from "@hermes/agent";
import type { GatewayConfig } from "../config/gateway-config.js";

/**
 * Resolves a model named in /model the way HERMES_MODEL is resolved: with HERMES_BASE_URL set, the name is the id the
 * endpoint serves (taken verbatim, slashes included) and priced with HERMES_MODEL_PRICE; otherwise a
 * `provider/model-id` of pi-ai's catalogue.
 */
export function resolveModelName(config: GatewayConfig, name: string): ModelResolution {
  if (config.model?.baseUrl) {
    return resolveModel({ model: name, baseUrl: config.model.baseUrl, api: config.model.api, apiKey: config.model.apiKey, contextWindow: config.model.contextWindow, price: config.model.price, input: config.model.input }, config.providerKeys);
  }
  return resolveModel({ model: name }, config.providerKeys);
}

/** A small map that forgets its oldest entries, for per-conversation state that must not grow with every chat. */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Refresh: recently used entries are kept longest.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): V | undefined {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size <= this.limit) return undefined;
    const oldest = this.entries.keys().next().value as K;
    const evicted = this.entries.get(oldest);
    this.entries.delete(oldest);
    return evicted;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  values(): V[] {
    return [...this.entries.values()];
  }
}
