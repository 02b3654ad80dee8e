/** The entry in HERMES_TOOLS that stands for the safe default set. */
export const DEFAULT_TOOLS_ENTRY = "default";

export type ToolListResult = { ok: true; tools: string[] } | { ok: false; message: string };

/** Comma-separated tool names, in order and without repeats; unset means the default set. */
export function parseToolList(
  text: string | undefined,
  knownTools: readonly string[],
  defaultTools: readonly string[],
): ToolListResult {
  if (text === undefined) return { ok: true, tools: [...new Set(defaultTools)] };
  const tools = new Set<string>();
  const unknown: string[] = [];
  for (const entry of text.split(",").map((name) => name.trim())) {
    if (entry === "") continue;
    if (entry === DEFAULT_TOOLS_ENTRY) for (const name of defaultTools) tools.add(name);
    else if (knownTools.includes(entry)) tools.add(entry);
    else if (!unknown.includes(entry)) unknown.push(entry);
  }
  if (unknown.length === 0) return { ok: true, tools: [...tools] };
  const names = unknown.map((name) => JSON.stringify(name)).join(", ");
  const known = [DEFAULT_TOOLS_ENTRY, ...knownTools].join(", ");
  return { ok: false, message: `unknown tool${unknown.length === 1 ? "" : "s"} ${names} (known: ${known})` };
}
