import { bootstrap, testMcpServer } from "@hermes/gateway";
import type { ParsedCommand } from "../cli/command-spec.js";
import { executeMcpCommand } from "./mcp-command.js";

export interface McpRunIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** `hermes mcp …` against the configuration the gateway would load; an invalid one exits 2 like every command. */
export async function mcpCommand(command: ParsedCommand, io: McpRunIo): Promise<number> {
  const boot = await bootstrap({ env: io.env, cwd: io.cwd, stderr: io.stderr, logName: "cli", traces: false });
  if (!boot.ok) return boot.exitCode;
  const { config, logger } = boot.value;
  return executeMcpCommand(command, {
    stdout: io.stdout,
    stderr: io.stderr,
    servers: config.mcpServers ?? [],
    test: (server) => testMcpServer(config, server, logger.child({ component: "mcp", server: server.name })),
  });
}
