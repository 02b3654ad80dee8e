import { fileURLToPath } from "node:url";
import { Type } from "@sinclair/typebox";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { recordingLogger } from "../../../../test/support/recording-logger.js";
import { waitUntil } from "../../../../test/support/wait-until.js";
import { ToolRegistry } from "../tools/registry.js";
import { defineTool } from "../tools/types.js";
import { McpManager } from "./index.js";
import { MAX_REGISTRY_TOOLS, MAX_SCHEMA_CHARS } from "./registry-attachment.js";
import { listAllTools } from "./requests.js";

const STDIO_SERVER = fileURLToPath(new URL("../../../../test/fakes/mcp/stdio-server.mjs", import.meta.url));
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("limits on what a server's tool list can do", () => {
  it("stops adding MCP tools to a registry that holds as many tools as a request may offer", async () => {
    const logger = recordingLogger();
    const mcp = new McpManager({ servers: [{ name: "fake", command: process.execPath, args: [STDIO_SERVER] }], logger });
    cleanups.push(() => mcp.close());
    await mcp.start();
    const registry = new ToolRegistry();
    for (let i = 0; i < MAX_REGISTRY_TOOLS - 3; i += 1) {
      registry.register(defineTool({ name: `own_${i}`, description: "one of the agent's own", parameters: Type.Object({}), concurrency: "parallel-safe", handler: async () => ({ content: "" }) }));
    }
    mcp.attach(registry);
    expect(registry.names()).toHaveLength(MAX_REGISTRY_TOOLS);
    expect(registry.names().filter((name) => name.startsWith("mcp_fake_"))).toHaveLength(3);
    const warning = logger.entries.find((entry) => entry.message === "MCP tools left out: the agent offers at most this many tools");
    expect(warning?.fields).toMatchObject({ mcpServer: "fake", maxTools: MAX_REGISTRY_TOOLS });
  });

  it("leaves out a tool whose input schema is too large to send with every request", async () => {
    const logger = recordingLogger();
    const mcp = new McpManager({ servers: [{ name: "fake", command: process.execPath, args: [STDIO_SERVER] }], logger });
    cleanups.push(() => mcp.close());
    await mcp.start();
    const registry = new ToolRegistry();
    mcp.attach(registry);
    const add = registry.get("mcp_fake_add_tool");
    await add?.handler({ name: "huge", schemaChars: MAX_SCHEMA_CHARS }, { signal: new AbortController().signal, toolCallId: "t1", sessionId: "s1", logger });
    await add?.handler({ name: "small" }, { signal: new AbortController().signal, toolCallId: "t2", sessionId: "s1", logger });
    await waitUntil(() => registry.has("mcp_fake_small"), "the small tool added");
    expect(registry.has("mcp_fake_huge")).toBe(false);
    expect(logger.entries.some((entry) => entry.message === "MCP tool left out: its input schema is too large" && entry.fields.mcpTool === "huge")).toBe(true);
  });

  it("keeps at most 1000 tools of a server's list", async () => {
    const server = new McpServer({ name: "many", version: "1.0.0" });
    for (let i = 0; i < 1_005; i += 1) server.registerTool(`t${i}`, { description: "one of many" }, async () => ({ content: [] }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(clientSide);
    cleanups.push(() => client.close(), () => server.close());
    expect(await listAllTools(client, 10_000)).toHaveLength(1_000);
  });
});
