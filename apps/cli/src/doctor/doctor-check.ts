import type { GatewayConfig, ProbeDeps, ProbeResult } from "@hermes/gateway";

/** The check names, in the order doctor shows them (README "Operator CLI"). */
export const CHECK_NAMES = ["config", "store", "http", "model", "telegram", "discord", "slack", "redis", "hooks"] as const;
export type CheckName = (typeof CHECK_NAMES)[number];
/** After the fixed checks, one per MCP server configured in config.yaml. */
export type McpCheckName = `mcp:${string}`;

export interface DoctorContext {
  readonly config: GatewayConfig;
  readonly probe: ProbeDeps;
  readonly bundledHooksDir: string;
}

export interface CheckOutcome extends ProbeResult {
  readonly name: CheckName | McpCheckName;
}

export type DoctorCheck = (context: DoctorContext) => Promise<ProbeResult>;
