/** The outcome of one check: `warn` is something to look at that does not stop the bot, `fail` does. */
export type ProbeStatus = "ok" | "warn" | "fail";

export interface ProbeResult {
  readonly status: ProbeStatus;
  readonly detail: string;
}

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface ProbeDeps {
  readonly fetch: FetchLike;
  /** Each online check gives up after this long. */
  readonly timeoutMs: number;
}

export const DEFAULT_PROBE_TIMEOUT_MS = 5_000;

export const ok = (detail: string): ProbeResult => ({ status: "ok", detail });
export const warn = (detail: string): ProbeResult => ({ status: "warn", detail });
export const fail = (detail: string): ProbeResult => ({ status: "fail", detail });

/** Why a request got no answer: the OS error (`connect ECONNREFUSED 127.0.0.1:9`), a timeout, or the message. */
export function describeRequestFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) return `no answer within ${timeoutMs / 1000} s`;
  const cause = error instanceof Error ? (error as Error & { cause?: unknown }).cause : undefined;
  if (cause instanceof Error && cause.message) return cause.message;
  if (cause instanceof AggregateError && cause.errors[0] instanceof Error) return cause.errors[0].message;
  return error instanceof Error ? error.message : String(error);
}

/** Tokens travel in URLs (Telegram) and may be echoed by servers: no detail may carry one. */
export function withoutSecrets(detail: string, secrets: ReadonlyArray<string | undefined>): string {
  let text = detail;
  for (const secret of secrets) if (secret && secret.length >= 4) text = text.split(secret).join("***");
  return text;
}

/** A JSON body, or undefined when the answer is not JSON. */
export async function jsonBody(response: Response): Promise<Record<string, unknown> | undefined> {
  try {
    const value: unknown = await response.json();
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
