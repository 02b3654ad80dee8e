import { HookRegistry, type HookListEntry } from "@hermes/gateway";
import { EXIT_OK, hookPaths, type HooksCommandIo } from "./hooks-io.js";

/** `hermes hooks list [--json]`: every hook found, whether it runs, and what is wrong with the ones that cannot. */
export async function listHooks(io: HooksCommandIo, options: { json: boolean }): Promise<number> {
  const paths = hookPaths(io);
  // Loading (not just reading manifests) is what reveals handlers that fail to import or export no function.
  const registry = await HookRegistry.load({ ...paths, logger: io.logger });
  const hooks = registry.list();
  if (options.json) {
    io.stdout.write(`${JSON.stringify(hooks, null, 2)}\n`);
    return EXIT_OK;
  }
  if (hooks.length === 0) {
    io.stdout.write(`No hooks found in ${paths.bundledDir} or ${paths.operatorDir}.\n`);
    return EXIT_OK;
  }
  io.stdout.write(formatHookTable(hooks));
  return EXIT_OK;
}

export function formatHookTable(hooks: readonly HookListEntry[]): string {
  const rows = hooks.map((hook) => [hook.name, stateOf(hook), hook.source, hook.events.length > 0 ? hook.events.join(", ") : "-"]);
  const header = ["NAME", "STATE", "SOURCE", "EVENTS"];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join("  ")
      .concat("\n");
  let text = line(header);
  hooks.forEach((hook, index) => {
    text += line(rows[index] ?? []);
    if (hook.problem !== undefined) text += `    problem: ${hook.problem}\n    folder:  ${hook.path}\n`;
  });
  return text;
}

function stateOf(hook: HookListEntry): string {
  // Only a manifest that could not be read lists no events: a valid one needs at least one.
  if (hook.problem !== undefined && hook.events.length === 0) return "invalid";
  if (hook.problem !== undefined) return hook.enabled ? "broken" : "disabled";
  return hook.enabled ? "enabled" : "disabled";
}
