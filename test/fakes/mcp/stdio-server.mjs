#!/usr/bin/env node
// A stdio MCP server for the tests: `node test/fakes/mcp/stdio-server.mjs [--name <name>] [--exit-at-start] [--change-during-list]`.
// Its `env_value` tool answers an environment variable, so tests can check that configured env values reach it.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { buildFakeMcpServer } from "./fake-tools.mjs";

const args = process.argv.slice(2);
const nameAt = args.indexOf("--name");
if (args.includes("--exit-at-start")) {
  // Echoes FAKE_TOKEN, as careless servers do, so tests can check the client masks it.
  process.stderr.write(`fake MCP server: refusing to start${process.env.FAKE_TOKEN ? ` (token: ${process.env.FAKE_TOKEN})` : ""}\n`);
  process.exit(1);
}
const server = buildFakeMcpServer({ name: nameAt >= 0 ? args[nameAt + 1] : "fake-stdio" });
server.registerTool("env_value", { description: "The value of an environment variable.", inputSchema: { name: z.string() } }, async ({ name }) => ({
  content: [{ type: "text", text: process.env[name] ?? "(unset)" }],
}));
const transport = new StdioServerTransport();
if (args.includes("--change-during-list")) {
  // Adds a tool while answering the first tools/list, so its list_changed goes out before that (stale) list does.
  const send = transport.send.bind(transport);
  let changed = false;
  transport.send = async (message, options) => {
    if (!changed && Array.isArray(message.result?.tools)) {
      changed = true;
      server.registerTool("late", { description: "Added during the first listing." }, async () => ({ content: [{ type: "text", text: "late" }] }));
    }
    return send(message, options);
  };
}
await server.connect(transport);
