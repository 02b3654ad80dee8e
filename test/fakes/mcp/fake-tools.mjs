// Plain JavaScript so a stdio server can run as `node stdio-server.mjs` (no build, no tsx) from the tests and from
// the compiled CLI's tests alike; the HTTP server imports the same tools.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/** A 1×1 red PNG. */
export const RED_DOT_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/**
 * The tools every fake MCP server offers. `add_tool`/`remove_tool` change the list at run time (the SDK then sends
 * notifications/tools/list_changed); `crash` ends the process; `sleep` outlasts short call timeouts.
 */
export function buildFakeMcpServer(options = {}) {
  const server = new McpServer({ name: options.name ?? "fake-mcp", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
  const added = new Map();
  let calls = 0;

  server.registerTool(
    "echo",
    // `times` repeats the text, for answers larger than a client should take.
    { description: "Echoes the text back.", inputSchema: { text: z.string(), times: z.number().optional() }, annotations: { readOnlyHint: true } },
    async ({ text, times }) => {
      calls += 1;
      return { content: [{ type: "text", text: `echo: ${text.repeat(times ?? 1)}` }] };
    },
  );
  server.registerTool("add", { description: "Adds two numbers.", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
    calls += 1;
    return { content: [{ type: "text", text: String(a + b) }] };
  });
  server.registerTool("calls", { description: "How many calls this server process has answered." }, async () => ({
    content: [{ type: "text", text: String(calls) }],
  }));
  server.registerTool("whoami", { description: "The server's process id." }, async () => ({ content: [{ type: "text", text: String(process.pid) }] }));
  server.registerTool("red_dot", { description: "A picture of a red dot." }, async () => ({
    content: [
      { type: "text", text: "a red dot" },
      { type: "image", data: RED_DOT_PNG, mimeType: "image/png" },
    ],
  }));
  server.registerTool("sleep", { description: "Waits, then answers.", inputSchema: { ms: z.number() } }, async ({ ms }) => {
    calls += 1;
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { content: [{ type: "text", text: `slept ${ms} ms` }] };
  });
  server.registerTool("fail", { description: "Always answers with a tool error." }, async () => ({
    isError: true,
    content: [{ type: "text", text: "this tool always fails" }],
  }));
  server.registerTool("crash", { description: "Ends the server process." }, async () => {
    process.exit(3);
  });
  // `schemaChars` gives the added tool an input schema at least that long, as a broken or hostile server might.
  const addToolInput = { name: z.string(), schemaChars: z.number().optional() };
  server.registerTool("add_tool", { description: "Adds a tool that answers its own name.", inputSchema: addToolInput }, async ({ name, schemaChars }) => {
    if (!added.has(name)) {
      const inputSchema = schemaChars ? { padding: z.string().optional().describe("x".repeat(schemaChars)) } : undefined;
      added.set(name, server.registerTool(name, { description: `Added at run time: ${name}`, inputSchema }, async () => ({ content: [{ type: "text", text: `I am ${name}` }] })));
    }
    return { content: [{ type: "text", text: `added ${name}` }] };
  });
  server.registerTool("remove_tool", { description: "Removes a tool.", inputSchema: { name: z.string() } }, async ({ name }) => {
    added.get(name)?.remove();
    added.delete(name);
    return { content: [{ type: "text", text: `removed ${name}` }] };
  });
  return server;
}
