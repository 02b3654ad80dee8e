import os from "node:os";
import { ALL_TOOL_NAMES, BUNDLED_HOOKS_DIR, DEFAULT_PROBE_TIMEOUT_MS, DEFAULT_TOOL_NAMES, formatConfigIssues, loadConfig, type FetchLike, type ProbeResult } from "@hermes/gateway";
import { checkHooks } from "./checks/check-hooks.js";
import { checkHttp } from "./checks/check-http.js";
import { checkMcpServers } from "./checks/check-mcp.js";
import { checkModel } from "./checks/check-model.js";
import { checkDiscord, checkSlack, checkTelegram } from "./checks/check-platforms.js";
import { checkRedis } from "./checks/check-redis.js";
import { checkStore } from "./checks/check-store.js";
import { CHECK_NAMES, type CheckName, type CheckOutcome, type DoctorCheck, type DoctorContext } from "./doctor-check.js";
import { doctorJson, doctorText } from "./doctor-report.js";

export interface DoctorIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: { write(text: string): unknown };
  fetch?: FetchLike;
  timeoutMs?: number;
  bundledHooksDir?: string;
}

const CHECKS: Readonly<Record<Exclude<CheckName, "config">, DoctorCheck>> = {
  store: checkStore,
  http: checkHttp,
  model: checkModel,
  telegram: checkTelegram,
  discord: checkDiscord,
  slack: checkSlack,
  redis: checkRedis,
  hooks: checkHooks,
};

/**
 * `hermes doctor [--json]`: checks, online and each within a short timeout, everything the bot depends on. An invalid
 * configuration is a failed `config` check (the others need it and are not run). Exit 0 when nothing failed, else 1.
 */
export async function runDoctor(io: DoctorIo, options: { json: boolean }): Promise<number> {
  const checks = await doctorChecks(io);
  io.stdout.write(`${options.json ? doctorJson(checks) : doctorText(checks)}\n`);
  return checks.some((check) => check.status === "fail") ? 1 : 0;
}

export async function doctorChecks(io: DoctorIo): Promise<CheckOutcome[]> {
  const loaded = await loadConfig({ env: io.env, cwd: io.cwd, homeDir: os.homedir(), knownTools: ALL_TOOL_NAMES, defaultTools: DEFAULT_TOOL_NAMES });
  if (!loaded.ok) {
    const detail = `${formatConfigIssues(loaded.errors)}\n(the other checks need a valid configuration)`;
    return [{ name: "config", status: "fail", detail }];
  }
  const config: ProbeResult =
    loaded.warnings.length > 0
      ? { status: "warn", detail: `valid, with warnings: ${loaded.warnings.join("; ")}` }
      : { status: "ok", detail: `valid (state in ${loaded.config.home})` };
  const context: DoctorContext = {
    config: loaded.config,
    probe: { fetch: io.fetch ?? globalThis.fetch, timeoutMs: io.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS },
    bundledHooksDir: io.bundledHooksDir ?? BUNDLED_HOOKS_DIR,
  };
  // Online checks run side by side, so the whole report takes about one timeout at worst.
  const [results, mcp] = await Promise.all([
    Promise.all(CHECK_NAMES.filter((name): name is Exclude<CheckName, "config"> => name !== "config").map(async (name) => ({ name, ...(await settled(CHECKS[name], context)) }))),
    checkMcpServers(context).catch((error: unknown) => [{ name: "mcp:*" as const, status: "fail" as const, detail: `the check itself failed: ${error instanceof Error ? error.message : String(error)}` }]),
  ]);
  return [{ name: "config", ...config }, ...results, ...mcp];
}

async function settled(check: DoctorCheck, context: DoctorContext): Promise<ProbeResult> {
  try {
    return await check(context);
  } catch (error) {
    return { status: "fail", detail: `the check itself failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
