import type { CommandSpec, GroupSpec, OptionSpec } from "./command-spec.js";

const HELP_OPTION: OptionSpec = { type: "boolean", short: "h", description: "show this help" };

/** `<folder> [--force]`: the arguments and options of one command as one usage fragment. */
export function commandSynopsis(spec: CommandSpec): string {
  const options = Object.entries(spec.options ?? {}).map(([name, option]) => `[--${name}${option.placeholder ? ` ${option.placeholder}` : ""}]`);
  return [spec.args, ...options].filter((part) => part !== undefined && part !== "").join(" ");
}

export function formatCommandHelp(prefix: readonly string[], spec: CommandSpec): string {
  const synopsis = commandSynopsis(spec);
  const lines = [`Usage: hermes ${[...prefix, spec.name].join(" ")}${synopsis ? ` ${synopsis}` : ""}`, "", spec.summary, "", "Options:"];
  const options: Array<[string, OptionSpec]> = [...Object.entries(spec.options ?? {}), ["help", HELP_OPTION]];
  const labels = options.map(([name, option]) => `${option.short ? `-${option.short}, ` : "    "}--${name}${option.placeholder ? ` ${option.placeholder}` : ""}`);
  const width = Math.max(...labels.map((label) => label.length));
  options.forEach(([, option], index) => lines.push(`  ${(labels[index] ?? "").padEnd(width)}  ${option.description}`));
  if (spec.details) lines.push("", spec.details);
  return lines.join("\n");
}

export function formatGroupHelp(group: GroupSpec): string {
  const rows = group.subcommands.map((spec) => [`${spec.name} ${commandSynopsis(spec)}`.trim(), spec.summary] as const);
  const width = Math.max(...rows.map(([left]) => left.length));
  const lines = [`Usage: hermes ${group.name} <command>`, "", group.summary, "", "Commands:"];
  for (const [left, summary] of rows) lines.push(`  ${left.padEnd(width)}  ${summary}`);
  lines.push("", `"hermes ${group.name} <command> --help" shows a command's options.`);
  if (group.details) lines.push("", group.details);
  return lines.join("\n");
}

export function formatTableHelp(entries: ReadonlyArray<{ name: string; summary: string }>, footer: string): string {
  const width = Math.max(...entries.map((entry) => entry.name.length));
  const lines = ["Usage: hermes <command> [options]", "", "Commands:"];
  for (const entry of entries) lines.push(`  ${entry.name.padEnd(width)}  ${entry.summary}`);
  lines.push("", "Options:", "  -h, --help     show help (also: hermes <command> --help, hermes help <command>)", "  -V, --version  print the version", "", footer);
  return lines.join("\n");
}
