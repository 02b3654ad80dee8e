import os from "node:os";
import { readConfigSources } from "../config/sources.js";
import { DEFAULT_PROBE_TIMEOUT_MS } from "./probe-result.js";
import { clackPrompter } from "./prompter.js";
import { runSetupWizard, type WizardOutcome } from "./wizard.js";

/** Nothing that could answer is configured: no model here and no Redis whose workers would have one. */
export async function needsSetup(options: { env: Readonly<Record<string, string | undefined>>; cwd: string }): Promise<boolean> {
  const sources = await readConfigSources({ env: options.env, cwd: options.cwd, homeDir: os.homedir() });
  return !sources.values.has("HERMES_MODEL") && !sources.values.has("REDIS_URL");
}

/**
 * `npm start` on a terminal with nothing configured asks whether to run the setup wizard first; without a terminal
 * (or when declined) it returns "skipped" and start-up goes on to explain what to set.
 */
export async function offerSetup(options: {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}): Promise<WizardOutcome | { kind: "skipped" }> {
  if (options.input.isTTY !== true || options.output.isTTY !== true) return { kind: "skipped" };
  if (!(await needsSetup(options))) return { kind: "skipped" };
  const prompter = await clackPrompter({ input: options.input, output: options.output });
  const wanted = await prompter.confirm({ message: "No model is configured. Run the setup now?", initialValue: true });
  if (wanted !== true) return { kind: "skipped" };
  return runSetupWizard({ env: options.env, cwd: options.cwd, prompter, probe: { fetch: globalThis.fetch, timeoutMs: DEFAULT_PROBE_TIMEOUT_MS } });
}
