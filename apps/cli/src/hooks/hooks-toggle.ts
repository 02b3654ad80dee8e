import { discoverHooks, readHookState, withHookEnabled, writeHookState } from "@hermes/gateway";
import { EXIT_FAILED, EXIT_OK, hookPaths, type HooksCommandIo } from "./hooks-io.js";

/**
 * `hermes hooks enable|disable <name>`: records the choice in the state file, which a running gateway re-reads
 * before its next event. Only manifests are read here; no hook code runs.
 */
export async function setHookEnabled(io: HooksCommandIo, name: string, enabled: boolean): Promise<number> {
  const paths = hookPaths(io);
  const found = await discoverHooks({ ...paths, logger: io.logger });
  const hook = found.hooks.find((candidate) => candidate.manifest.name === name);
  const broken = found.invalid.find((candidate) => candidate.name === name);
  if (!hook && !broken) {
    const known = found.hooks.map((candidate) => candidate.manifest.name);
    const hint = known.length > 0 ? ` Known hooks: ${known.join(", ")}.` : "";
    io.stderr.write(`Unknown hook "${name}".${hint}\n`);
    return EXIT_FAILED;
  }
  const state = readHookState(paths.stateFile);
  if (state.error) io.stderr.write(`warning: replacing an unreadable state file (${state.error})\n`);
  await writeHookState(paths.stateFile, withHookEnabled(state.overrides, name, enabled));
  io.stdout.write(`${enabled ? "Enabled" : "Disabled"} hook "${name}". A running gateway applies this without a restart.\n`);
  if (enabled && !hook && broken) io.stderr.write(`warning: "${name}" cannot run until this is fixed: ${broken.error}\n`);
  return EXIT_OK;
}
