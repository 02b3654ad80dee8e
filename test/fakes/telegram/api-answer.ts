import type { ApiError, BotApiState } from "./bot-api-state.js";

export type ApiAnswer = { ok: true; result: unknown } | ({ ok: false } & ApiError);

export type Params = Record<string, unknown>;
export type Method = (state: BotApiState, params: Params, signal: AbortSignal) => Promise<ApiAnswer> | ApiAnswer;

export function ok(result: unknown): ApiAnswer {
  return { ok: true, result };
}

export function error(code: number, description: string): ApiAnswer {
  return { ok: false, error_code: code, description };
}

export function optionalInt(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string" && /^-?\d+$/.test(value)) return Number(value);
  return undefined;
}

export function objectParam(value: unknown): Record<string, unknown> | undefined {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  return undefined;
}
