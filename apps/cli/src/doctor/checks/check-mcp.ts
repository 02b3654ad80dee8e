import { describeMcpUrl, redactSecrets, silentLogger } from "@hermes/agent";
import { configSecrets, testMcpServer, type ProbeResult } from "@hermes/gateway";
import type { McpCheckName } from "../doctor-check.js";
import type { DoctorContext } from "../doctor-check.js";

/** One check per configured MCP server, named `mcp:<name>`: connected and its tools listed, or why not. */
export async function checkMcpServers(context: DoctorContext): Promise<Array<ProbeResult & { name: McpCheckName }>> {
  const servers = context.config.mcpServers ?? [];
  const secrets = configSecrets(context.config);
  return Promise.all(
    servers.map(async (server) => {
      const name: McpCheckName = `mcp:${server.name}`;
      // The gateway never starts a disabled server: a choice, not a fault, and nothing to try.
      if (!server.enabled) return { name, status: "ok", detail: "disabled (enabled: false in config.yaml)" };
      // A URL's query or user part may carry a key (?api_key=…); the doctor's report is the kind of text people paste.
      const where = redactSecrets(server.transport.kind === "stdio" ? `stdio: ${server.transport.command}` : describeMcpUrl(server.transport.url), secrets);
      const result = await testMcpServer(context.config, server, silentLogger);
      if (!result.ok) return { name, status: "fail", detail: `${where}: ${result.error} (a running gateway keeps retrying it; its tools are missing meanwhile)` };
      const tools = `${result.tools.length} tool${result.tools.length === 1 ? "" : "s"}${result.tools.length > 0 ? ` (${result.tools.join(", ")})` : ""}`;
      return { name, status: "ok", detail: `connected (${where}), ${tools}` };
    }),
  );
}
