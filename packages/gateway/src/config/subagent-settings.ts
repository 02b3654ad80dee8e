import { DEFAULT_SUBAGENT_MAX_STEPS } from "@hermes/agent";
import type { SettingReader } from "./setting-reader.js";
import type { SettingInfo } from "./settings.js";

/** A sub-agent works on one piece of its parent's task, so its budget is a share of a run's (HERMES_MAX_STEPS ≤ 1000). */
const SUBAGENT_STEPS_RANGE = { min: 1, max: 200 } as const;

/** The budget of delegate_task's sub-agents: part of the SETTINGS list, in its place. */
export const SUBAGENT_SETTINGS = [
  {
    name: "HERMES_SUBAGENT_MAX_STEPS",
    description: `Most model calls of each sub-agent a delegate_task call starts (${SUBAGENT_STEPS_RANGE.min}–${SUBAGENT_STEPS_RANGE.max})`,
    default: String(DEFAULT_SUBAGENT_MAX_STEPS),
    secret: false,
  },
] as const satisfies readonly SettingInfo[];

export function readSubagentMaxSteps(reader: SettingReader): number {
  return reader.integer("HERMES_SUBAGENT_MAX_STEPS", SUBAGENT_STEPS_RANGE) ?? DEFAULT_SUBAGENT_MAX_STEPS;
}
