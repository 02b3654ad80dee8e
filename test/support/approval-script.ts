import { expect, vi } from "vitest";
import type { ScriptedReply } from "../fakes/llm-server.js";
import type { GatewayHarness } from "./gateway-harness.js";

/** What the streaming and approval tests of each platform share: the scripted terminal call and how they read results. */

/** The scripted LLM's requests are no change of a stand-in's state, so they are polled. */
export const SLOW_MACHINE = { timeout: 20_000, interval: 25 };

/** The terminal tool enabled; it asks for approval by default (HERMES_APPROVAL=terminal). */
export const TERMINAL_TOOLS = { HERMES_TOOLS: "default,terminal" };

export function terminalCall(command: string): ScriptedReply {
  return { kind: "tools", calls: [{ name: "terminal", arguments: { command } }] };
}

/** The prompt's text once decided, as Markdown (each platform renders it in its own markup). */
export function decidedPrompt(command: string, line: string): string {
  return `**\`terminal\` call**\n\`\`\`\n${command}\n\`\`\`\n${line}`;
}

/** The request id in the prompt's first button ("/approve <id>"), given the buttons' values in order. */
export function approvalIdOf(values: readonly string[]): string {
  const id = /^\/approve (\S+)$/.exec(values[0] ?? "")?.[1];
  if (id === undefined) throw new Error(`no approval id on the prompt's buttons: ${values.join(", ")}`);
  return id;
}

/** The model's second request (what it was told after the tool call), once it was made. */
export async function secondRequest(harness: GatewayHarness): Promise<string> {
  await vi.waitFor(() => expect(harness.llm.requests.length).toBeGreaterThanOrEqual(2), SLOW_MACHINE);
  return JSON.stringify(harness.llm.requests[1]?.messages ?? []);
}
