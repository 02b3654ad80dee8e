import type { ModelPrice } from "@hermes/agent";
import type { LimitSettings } from "./gateway-config.js";
import type { SettingReader } from "./setting-reader.js";
import type { SettingInfo } from "./settings.js";

export const DEFAULT_RATE_LIMIT = 20;
export const DEFAULT_MAX_QUEUED = 10;

/** What bounds one person's use of the bot: part of the SETTINGS list, in its place. */
export const LIMIT_SETTINGS = [
  {
    name: "HERMES_RATE_LIMIT",
    description: "Messages per user per minute that get an answer (1–10000); beyond it the user is told once a minute and the message is skipped; `off` (or 0) for no limit. Commands are never limited",
    default: String(DEFAULT_RATE_LIMIT),
    secret: false,
  },
  {
    name: "HERMES_MAX_QUEUED",
    description: "Messages of one conversation waiting for an answer (1–1000); further ones are skipped with a notice once a minute; `off` (or 0) for no limit",
    default: String(DEFAULT_MAX_QUEUED),
    secret: false,
  },
  {
    name: "HERMES_DAILY_BUDGET_USD",
    description: "Most a user's answers may cost per UTC day, in USD (e.g. 1.50); once reached the model is not called until 00:00 UTC; unset for no budget",
    default: "",
    secret: false,
  },
  {
    name: "HERMES_MODEL_PRICE",
    description: "`<input>,<output>` USD per million tokens of the models at HERMES_BASE_URL (cache tokens count as input); catalogue models use pi-ai's prices",
    default: "0,0",
    secret: false,
  },
] as const satisfies readonly SettingInfo[];

const OFF_WORDS: ReadonlySet<string> = new Set(["off", "0"]);
const MAX_RATE_LIMIT = 10_000;
const MAX_QUEUED = 1_000;
// Larger amounts are a typo (cents for dollars, a missing point), not a budget.
const MAX_BUDGET_USD = 1_000_000;
const MAX_PRICE_PER_MILLION = 100_000;
const DECIMAL = /^[0-9]+(\.[0-9]+)?$/;

export function readLimitSettings(reader: SettingReader): LimitSettings {
  const ratePerMinute = readCount(reader, "HERMES_RATE_LIMIT", MAX_RATE_LIMIT, DEFAULT_RATE_LIMIT, "messages per user per minute");
  const maxQueued = readCount(reader, "HERMES_MAX_QUEUED", MAX_QUEUED, DEFAULT_MAX_QUEUED, "waiting messages per conversation");
  const dailyBudgetUsd = readBudget(reader);
  return {
    ...(ratePerMinute !== undefined && { ratePerMinute }),
    ...(maxQueued !== undefined && { maxQueued }),
    ...(dailyBudgetUsd !== undefined && { dailyBudgetUsd }),
  };
}

/** HERMES_MODEL_PRICE; absent when unset or 0,0 (a custom model is free unless priced). */
export function readModelPrice(reader: SettingReader): ModelPrice | undefined {
  const text = reader.text("HERMES_MODEL_PRICE");
  if (text === undefined) return undefined;
  const parts = text.split(",").map((part) => part.trim());
  const [input, output] = parts.map(Number);
  const valid =
    parts.length === 2 && parts.every((part) => DECIMAL.test(part)) && input !== undefined && output !== undefined &&
    input <= MAX_PRICE_PER_MILLION && output <= MAX_PRICE_PER_MILLION;
  if (!valid) {
    reader.reject("HERMES_MODEL_PRICE", "must be `<input>,<output>`: two amounts in USD per million tokens, e.g. 0.15,0.60");
    return undefined;
  }
  if (!reader.has("HERMES_BASE_URL")) {
    reader.warn("HERMES_MODEL_PRICE is set but HERMES_BASE_URL is not, so it has no effect (catalogue models use pi-ai's prices)");
    return undefined;
  }
  return input === 0 && output === 0 ? undefined : { input, output };
}

/** A positive count, or no limit for `off`/0; absent means the default. */
function readCount(
  reader: SettingReader,
  name: "HERMES_RATE_LIMIT" | "HERMES_MAX_QUEUED",
  max: number,
  fallback: number,
  unit: string,
): number | undefined {
  const text = reader.text(name);
  if (text === undefined) return fallback;
  if (OFF_WORDS.has(text.toLowerCase())) return undefined;
  const value = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
  if (value >= 1 && value <= max) return value;
  reader.reject(name, `must be a whole number of ${unit} from 1 to ${max}, or off`);
  return fallback;
}

function readBudget(reader: SettingReader): number | undefined {
  const text = reader.text("HERMES_DAILY_BUDGET_USD");
  if (text === undefined) return undefined;
  const value = DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (value > 0 && value <= MAX_BUDGET_USD) return value;
  reader.reject("HERMES_DAILY_BUDGET_USD", "must be an amount in USD greater than 0, e.g. 1 or 0.50 (leave it unset for no budget)");
  return undefined;
}
