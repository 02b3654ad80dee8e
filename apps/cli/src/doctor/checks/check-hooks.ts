import path from "node:path";
import { silentLogger } from "@hermes/agent";
import { HookRegistry, type ProbeResult } from "@hermes/gateway";
import type { DoctorContext } from "../doctor-check.js";

/** Loads the hooks as the gateway does; a broken hook is skipped there, so it is a warning here. */
export async function checkHooks(context: DoctorContext): Promise<ProbeResult> {
  const operatorDir = context.config.paths.hooks;
  try {
    const registry = await HookRegistry.load({ bundledDir: context.bundledHooksDir, operatorDir, stateFile: path.join(operatorDir, "state.json"), logger: silentLogger });
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
