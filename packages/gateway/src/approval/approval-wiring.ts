import type { Logger, MetricsRegistry } from "@hermes/agent";
import type { NewDelivery } from "@hermes/store";
import type { GatewayConfig } from "../config/gateway-config.js";
import { createApprovalsMetric } from "../runtime/gateway-metrics.js";
import { createApprovalGate } from "./approval-gate.js";
import type { ApprovalsPort } from "./approval-types.js";

/**
 * The approval gate for a process that runs agents, or undefined when no enabled tool needs approval (HERMES_APPROVAL
 * names tools that are off, or `none`). MCP tools (`mcp_…`) are enabled by their server's configuration, not
 * HERMES_TOOLS, so they always count.
 */
export function approvalGateFor(
  config: Pick<GatewayConfig, "tools" | "interaction">,
  deps: { approvals: ApprovalsPort; deliveries: { enqueue(delivery: NewDelivery): Promise<unknown> }; announce(inboundId: number): void; logger: Logger; metrics: MetricsRegistry },
): ReturnType<typeof createApprovalGate> | undefined {
  const tools = approvalToolsOf(config);
  if (tools.size === 0) return undefined;
  const outcomes = createApprovalsMetric(deps.metrics);
  return createApprovalGate({ ...deps, tools, timeoutMs: config.interaction.approval.timeoutMs, onOutcome: (tool, outcome) => outcomes.inc(1, { tool, outcome }) });
}

/** The enabled tools whose calls wait for approval. */
export function approvalToolsOf(config: Pick<GatewayConfig, "tools" | "interaction">): ReadonlySet<string> {
  return new Set(config.interaction.approval.tools.filter((tool) => config.tools.includes(tool) || tool.startsWith("mcp_")));
}
