import { describe, expect, it } from "vitest";
import type { AnyToolDefinition } from "../tools/types.js";
import { MemoryProvider, isMemoryProvider, isMemoryProviderClass } from "./memory-provider.js";

class MinimalProvider extends MemoryProvider {
  readonly name = "minimal";
  async isAvailable(): Promise<boolean> {
    return true;
  }
  async initialize(): Promise<void> {}
  getToolSchemas(): AnyToolDefinition[] {
    return [];
  }
}

describe("memory provider shape checks", () => {
  it("accepts a subclass and its instances; optional hooks stay absent", () => {
    const provider = new MinimalProvider();
    expect(isMemoryProviderClass(MinimalProvider)).toBe(true);
    expect(isMemoryProvider(provider)).toBe(true);
    expect(provider.prefetch).toBeUndefined();
    expect(provider.systemPromptBlock).toBeUndefined();
  });

  it("accepts duck-typed objects and classes that do not extend MemoryProvider", () => {
    const duck = { name: "duck", isAvailable: async () => true, initialize: async () => {}, getToolSchemas: () => [] };
    class DuckClass {
      name = "duck";
      async isAvailable() {
        return true;
      }
      async initialize() {}
      getToolSchemas() {
        return [];
      }
    }
    expect(isMemoryProvider(duck)).toBe(true);
    expect(isMemoryProviderClass(DuckClass)).toBe(true);
  });

  it("rejects the abstract base itself, incomplete shapes and non-objects", () => {
    expect(isMemoryProviderClass(MemoryProvider)).toBe(false);
    expect(isMemoryProviderClass(() => ({}))).toBe(false);
    expect(isMemoryProvider({ name: "", isAvailable: async () => true, initialize: async () => {}, getToolSchemas: () => [] })).toBe(false);
    expect(isMemoryProvider({ name: "half", isAvailable: async () => true })).toBe(false);
    expect(isMemoryProvider(null)).toBe(false);
    expect(isMemoryProvider("provider")).toBe(false);
  });
});
