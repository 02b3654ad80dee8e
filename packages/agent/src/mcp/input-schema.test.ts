import { describe, expect, it } from "vitest";
import { providerSafeInputSchema } from "./input-schema.js";
import type { McpServerConnection } from "./server-connection.js";
import { mcpToolDefinition } from "./tool-definition.js";

describe("providerSafeInputSchema", () => {
  it("leaves a sound schema as it is, without $schema and with an object type at the top", () => {
    const sound = { type: "object", properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } }, required: ["city"] };
    expect(providerSafeInputSchema({ $schema: "http://json-schema.org/draft-07/schema#", ...sound })).toEqual(sound);
    expect(providerSafeInputSchema({})).toEqual({ type: "object" });
  });

  it("gives arrays without items any items, at every depth", () => {
    const mended = providerSafeInputSchema({
      type: "object",
      properties: {
        tags: { type: "array" },
        nullableList: { type: ["array", "null"] },
        nested: { type: "object", properties: { inner: { type: "array", description: "no items" } } },
        either: { anyOf: [{ type: "array" }, { type: "string" }] },
        tuple: { type: "array", prefixItems: [{ type: "string" }] },
        typed: { type: "array", items: { type: "object", properties: { ids: { type: "array" } } } },
      },
      $defs: { list: { type: "array" } },
    });
    expect(mended).toEqual({
      type: "object",
      properties: {
        tags: { type: "array", items: {} },
        nullableList: { type: ["array", "null"], items: {} },
        nested: { type: "object", properties: { inner: { type: "array", description: "no items", items: {} } } },
        either: { anyOf: [{ type: "array", items: {} }, { type: "string" }] },
        tuple: { type: "array", prefixItems: [{ type: "string" }] },
        typed: { type: "array", items: { type: "object", properties: { ids: { type: "array", items: {} } } } },
      },
      $defs: { list: { type: "array", items: {} } },
    });
  });

  it("drops properties and required that are not what their names say, and writes a `true` property as {}", () => {
    expect(providerSafeInputSchema({ type: "object", properties: ["city"], required: "city" })).toEqual({ type: "object" });
    expect(providerSafeInputSchema({ properties: { anything: true, never: false, odd: 3, city: { type: "string" } }, required: ["city", 4] })).toEqual({
      type: "object",
      properties: { anything: {}, city: { type: "string" } },
      required: ["city"],
    });
  });

  it("writes `items: true` as {} and mends the schemas of a tuple's items list, leaving additionalProperties as it is", () => {
    const mended = providerSafeInputSchema({
      properties: {
        anything: { type: "array", items: true },
        pair: { type: "array", items: [{ type: "array" }, { type: "string" }], additionalItems: false },
        labels: { type: "object", additionalProperties: true },
      },
    });
    expect(mended).toEqual({
      type: "object",
      properties: {
        anything: { type: "array", items: {} },
        pair: { type: "array", items: [{ type: "array", items: {} }, { type: "string" }], additionalItems: false },
        labels: { type: "object", additionalProperties: true },
      },
    });
  });

  it("stops mending at a bounded depth instead of walking a hostile schema for ever", () => {
    let deep: Record<string, unknown> = { type: "array" };
    for (let i = 0; i < 100; i += 1) deep = { type: "object", properties: { next: deep } };
    const mended = providerSafeInputSchema(deep);
    let node: Record<string, unknown> = mended;
    for (let i = 0; i < 100; i += 1) node = (node.properties as Record<string, Record<string, unknown>>).next as Record<string, unknown>;
    expect(node).toEqual({ type: "array" });
  });

  it("is what an MCP tool offers the model as its parameters", () => {
    const connection = { name: "notes", timeoutMs: 30_000, connected: true, call: async () => ({ content: "" }) } as unknown as McpServerConnection;
    const definition = mcpToolDefinition(connection, { name: "tag", inputSchema: { type: "object", properties: { tags: { type: "array" } } } });
    expect(definition.parameters).toEqual({ type: "object", properties: { tags: { type: "array", items: {} } } });
  });
});
