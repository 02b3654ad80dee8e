import type { RetentionSettings } from "./gateway-config.js";
import type { SettingReader } from "./setting-reader.js";

export const DEFAULT_RETENTION_DAYS = 30;

/** A window shorter than a day could forget a message the platform is still allowed to redeliver. */
const DAYS_RANGE = { min: 1, max: 36_500 } as const;

export function readRetentionSettings(reader: SettingReader): RetentionSettings {
  const days = reader.integer("HERMES_RETENTION_DAYS", DAYS_RANGE) ?? DEFAULT_RETENTION_DAYS;
  const historyDays = reader.integer("HERMES_HISTORY_RETENTION_DAYS", DAYS_RANGE);
  return historyDays === undefined ? { days } : { days, historyDays };
}
