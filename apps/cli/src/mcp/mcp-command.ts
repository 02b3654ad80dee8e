import type { McpTestResult } from "@hermes/agent";
import type { McpServerSettings } from "@hermes/gateway";
import { booleanOption, EXIT_FAILED, EXIT_OK, EXIT_USAGE, type ParsedCommand } from "../cli/command-spec.js";

export interface McpCommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  servers: readonly McpServerSettings[];
  /** Connects to the server, lists its tools and disconnects; the error comes back masked. */
  test(server: McpServerSettings): Promise<McpTestResult>;
}

type ServerReport =
  | { name: string; transport: "stdio" | "http"; enabled: false; state: "disabled"; tools: string[] }
  | { name: string; transport: "stdio" | "http"; enabled: true; state: "connected"; tools: string[] }
  | { name: string; transport: "stdio" | "http"; enabled: true; state: "failed"; tools: string[]; error: string };

/** `hermes mcp list|test`: 0 when every server tried connected, 1 when one failed, 2 for an unknown name. */
export async function executeMcpCommand(command: ParsedCommand, io: McpCommandIo): Promise<number> {
  if (command.spec.name === "list") return listServers(io, booleanOption(command.values, "json"));
  return testServer(io, command.positionals[0] ?? "");
}

async function listServers(io: McpCommandIo, json: boolean): Promise<number> {
  // Side by side, so the list takes about one connection at worst.
  const reports = await Promise.all(io.servers.map((server) => report(server, io)));
  if (json) io.stdout.write(`${JSON.stringify({ servers: reports }, null, 2)}\n`);
  else if (reports.length === 0) io.stdout.write("No MCP servers are configured (mcp_servers in $HERMES_HOME/config.yaml).\n");
  else io.stdout.write(`${table(reports)}\n`);
  return reports.some((entry) => entry.state === "failed") ? EXIT_FAILED : EXIT_OK;
}

async function testServer(io: McpCommandIo, name: string): Promise<number> {
  const server = io.servers.find((entry) => entry.name === name);
  if (!server) {
    const known = io.servers.map((entry) => entry.name);
    io.stderr.write(`hermes mcp test: no MCP server named "${name}" is configured (${known.length > 0 ? `configured: ${known.join(", ")}` : "mcp_servers in config.yaml is empty"})\n`);
    return EXIT_USAGE;
  }
  const result = await io.test(server);
  const note = server.enabled ? "" : " (disabled in config.yaml: the gateway does not start it)";
  if (!result.ok) {
    io.stdout.write(`${name}: failed: ${result.error}${note}\n`);
    return EXIT_FAILED;
  }
  io.stdout.write(`${name}: connected, ${countTools(result.tools)}${note}\n${result.tools.map((tool) => `  ${tool}\n`).join("")}`);
  return EXIT_OK;
}

async function report(server: McpServerSettings, io: McpCommandIo): Promise<ServerReport> {
  const base = { name: server.name, transport: server.transport.kind };
  if (!server.enabled) return { ...base, enabled: false, state: "disabled", tools: [] };
  const result = await io.test(server);
  return result.ok ? { ...base, enabled: true, state: "connected", tools: result.tools } : { ...base, enabled: true, state: "failed", tools: [], error: result.error };
}

function table(reports: readonly ServerReport[]): string {
  const width = Math.max(...reports.map((entry) => entry.name.length));
  return reports
    .map((entry) => {
      const detail = entry.state === "failed" ? entry.error : entry.state === "connected" ? `${countTools(entry.tools)}: ${entry.tools.join(", ")}` : "enabled: false";
      return `${entry.name.padEnd(width)}  ${entry.transport.padEnd(5)}  ${(entry.state === "failed" ? "FAILED" : entry.state).padEnd(9)}  ${detail}`;
    })
    .join("\n");
}

function countTools(tools: readonly string[]): string {
  return `${tools.length} tool${tools.length === 1 ? "" : "s"}`;
}
