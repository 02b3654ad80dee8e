import path from "node:path";
import { silentLogger } from "@hermes/agent";
import { HookRegistry, type ProbeResult } from "@hermes/gateway";
import type { DoctorContext } from "../doctor-check.js";

/** Loads the hooks as the gateway does; a broken hook is skipped there, so it is a warning here. */
export async function checkHooks(context: DoctorContext): Promise<ProbeResult> {
  const operatorDir = context.config.paths.hooks;
  const timeoutMs = context.probe.timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  // A handler whose top-level code never finishes would hold the report up; like such a broken hook, it is a warning.
  const deadline = new Promise<ProbeResult>((resolve) => {
    const detail = `hooks did not finish loading within ${timeoutMs / 1000} s (from ${operatorDir}): a handler's top-level code may never finish; disable that hook with npm run hermes -- hooks disable <name>`;
    timer = setTimeout(() => resolve({ status: "warn", detail }), timeoutMs);
  });
  try {
    return await Promise.race([summarise(context.bundledHooksDir, operatorDir), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function summarise(bundledDir: string, operatorDir: string): Promise<ProbeResult> {
  try {
    const registry = await HookRegistry.load({ bundledDir, operatorDir, stateFile: path.join(operatorDir, "state.json"), logger: silentLogger });
    const hooks = registry.list();
    const enabled = hooks.filter((hook) => hook.enabled && hook.problem === undefined).map((hook) => hook.name);
    const problems = hooks.filter((hook) => hook.problem !== undefined).map((hook) => `${hook.name}: ${hook.problem ?? ""}`);
    const summary = `${enabled.length} of ${hooks.length} enabled${enabled.length > 0 ? ` (${enabled.join(", ")})` : ""}`;
    if (problems.length > 0) return { status: "warn", detail: `${summary}; skipped because of problems: ${problems.join("; ")}` };
    return { status: "ok", detail: summary };
  } catch (error) {
    return { status: "fail", detail: `hooks could not be loaded: ${error instanceof Error ? error.message : String(error)}` };
  }
}
