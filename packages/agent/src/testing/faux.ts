import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { registerFauxProvider, type FauxProviderRegistration } from "@mariozechner/pi-ai";
import type { HermesAgentConfig } from "../agent-config.js";
import { HermesAgent } from "../agent.js";
import { ToolRegistry } from "../tools/registry.js";
import { defineTool, type AnyToolDefinition, type ConcurrencyClass } from "../tools/types.js";

/** Test fixture: an agent on pi-ai's faux provider with a private state folder. */
export interface FauxAgentFixture {
  faux: FauxProviderRegistration;
  stateDir: string;
  sleeps: number[];
  make(config?: Partial<HermesAgentConfig>): Promise<HermesAgent>;
  cleanup(): Promise<void>;
}

export async function fauxAgentFixture(): Promise<FauxAgentFixture> {
  const faux = registerFauxProvider();
  const stateDir = await mkdtemp(path.join(os.tmpdir(), "hermes-agent-test-"));
  const sleeps: number[] = [];
  return {
    faux,
    stateDir,
    sleeps,
    make: (config = {}) =>
      HermesAgent.create({
        model: { model: faux.getModel(), apiKey: "test" },
        builtinTools: false,
        stateDir,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
        random: () => 0,
        ...config,
      }),
    cleanup: async () => {
      faux.unregister();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/** A tool that records when each call starts and ends, to observe concurrency. */
export function recordingTool(
  name: string,
  concurrency: ConcurrencyClass,
  log: string[],
  options: { delayMs?: number; fail?: boolean; paths?: (args: { path?: string }) => string[] } = {},
): AnyToolDefinition {
  return defineTool({
    name,
    description: `test tool ${name}`,
    parameters: Type.Object({ path: Type.Optional(Type.String()), value: Type.Optional(Type.Number()) }),
    concurrency,
    paths: options.paths,
    handler: async (args) => {
      const label = `${name}(${args.path ?? args.value ?? ""})`;
      log.push(`start ${label}`);
      await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 20));
      log.push(`end ${label}`);
      return options.fail ? { isError: true, content: `${label} failed` } : { content: `${label} done` };
    },
  });
}

export function registryWith(...tools: AnyToolDefinition[]): ToolRegistry {
  const registry = new ToolRegistry();
  for (const tool of tools) registry.register(tool);
  return registry;
}
