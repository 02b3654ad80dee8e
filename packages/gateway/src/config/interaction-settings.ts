import type { InteractionSettings } from "./gateway-config.js";
import type { SettingReader } from "./setting-reader.js";
import type { SettingInfo } from "./settings.js";

export const DEFAULT_APPROVAL_TIMEOUT_S = 300;

/** Streamed replies and asking before dangerous tools: part of the SETTINGS list, in its place. */
export const INTERACTION_SETTINGS = [
  {
    name: "HERMES_STREAMING",
    description:
      "`edit`: a reply appears as soon as the model starts writing and the same message is edited as text arrives (at most once a second); `off`: the whole reply is sent when it is done",
    default: "off",
    secret: false,
  },
  {
    name: "HERMES_APPROVAL",
    description:
      "Comma-separated tool names whose every call the person who asked must approve first (buttons, or typed `/approve` and `/deny`); `none` turns approval off. Applies to enabled tools only",
    default: "terminal",
    secret: false,
  },
  {
    name: "HERMES_APPROVAL_TIMEOUT_S",
    description: "Seconds an approval waits for an answer; no answer is a denial (1–86400)",
    default: String(DEFAULT_APPROVAL_TIMEOUT_S),
    secret: false,
  },
] as const satisfies readonly SettingInfo[];

// MCP servers (#16) add tools named at run time, so an `mcp_` name cannot be checked against the known tools.
const DYNAMIC_TOOL = /^mcp_[A-Za-z0-9_]+$/;

export function readInteractionSettings(reader: SettingReader, knownTools: readonly string[]): InteractionSettings {
  const streaming = reader.choice("HERMES_STREAMING", ["off", "edit"] as const) ?? "off";
  const timeoutS = reader.integer("HERMES_APPROVAL_TIMEOUT_S", { min: 1, max: 86_400 }) ?? DEFAULT_APPROVAL_TIMEOUT_S;
  return { streaming, approval: { tools: readApprovalTools(reader, knownTools), timeoutMs: timeoutS * 1000 } };
}

function readApprovalTools(reader: SettingReader, knownTools: readonly string[]): readonly string[] {
  const raw = reader.text("HERMES_APPROVAL");
  if (raw === undefined) return ["terminal"];
  const names = raw.split(",").map((name) => name.trim()).filter((name) => name.length > 0);
  if (names.length === 1 && names[0]?.toLowerCase() === "none") return [];
  if (names.length === 0) {
    reader.reject("HERMES_APPROVAL", "must name tools (e.g. terminal,write_file) or be `none`");
    return ["terminal"];
  }
  const unknown = names.filter((name) => !knownTools.includes(name) && !DYNAMIC_TOOL.test(name));
  if (unknown.length > 0) {
    reader.reject("HERMES_APPROVAL", `names unknown tools (${unknown.join(", ")}); known: ${knownTools.join(", ")}, or none`, { quoteValue: false });
    return ["terminal"];
  }
  return [...new Set(names)];
}
