import { getOverflowPatterns } from "@mariozechner/pi-ai";
import { redactSecrets } from "./redact.js";
import { parseRetryAfterMs } from "./retry-after.js";

export type ProviderErrorClass =
  | "auth"
  | "auth_permanent"
  | "billing"
  | "rate_limit"
  | "overloaded"
  | "server_error"
  | "timeout"
  | "context_overflow"
  | "payload_too_large"
  | "model_not_found"
  | "format_error"
  | "unknown";

export interface ErrorRecoveryHint {
  retryable: boolean;
  shouldCompress: boolean;
  shouldFallback: boolean;
  shouldRotateCredential: boolean;
}

export interface ClassifiedError {
  errorClass: ProviderErrorClass;
  status?: number;
  /** Provider text with secrets masked. */
  message: string;
  hint: ErrorRecoveryHint;
  retryAfterMs?: number;
  /** One or two plain sentences for the person in the chat; never contains provider text. */
  userMessage: string;
}

export interface ProviderFailure {
  message: string;
  status?: number;
  headers?: Record<string, string>;
  /** How many auth failures this credential already had; a repeat means retrying it is pointless. */
  previousAuthFailures?: number;
  /** Exact credential values to mask (e.g. the configured API key), in addition to shape-based masking. */
  knownSecrets?: readonly string[];
  /** Epoch milliseconds for resolving an HTTP-date Retry-After; defaults to Date.now(). */
  now?: number;
}

type Rule = readonly [pattern: RegExp, errorClass: ProviderErrorClass];

// Checked before the status: these providers report them under a status that would mislead.
const PROVIDER_SPECIFIC_RULES: readonly Rule[] = [
  // Anthropic rejects a replayed thinking block whose signature no longer verifies; resending it fails the same way.
  [/\bthinking\b[^\n]*\bsignature\b|\bsignature\b[^\n]*\bthinking\b/i, "format_error"],
  [/prompt is too long/i, "context_overflow"],
  // Anthropic reports an empty balance as 400 invalid_request_error.
  [/credit balance is too low/i, "billing"],
  // Gemini reports a bad key as 400 INVALID_ARGUMENT.
  [/API key not valid|API_KEY_INVALID/i, "auth"],
  // llama.cpp and Ollama have reported overflow as 500, which would otherwise be retried uselessly.
  [/exceeds the available context size|prompt too long; exceeded (?:max )?context length/i, "context_overflow"],
];

const STRUCTURED_CODE_RULES: readonly Rule[] = [
  [/\binsufficient_quota\b/i, "billing"],
  [/\bcontext_length_exceeded\b/i, "context_overflow"],
  [/\bmodel_not_found\b/i, "model_not_found"],
  [/\binvalid_api_key\b|\bauthentication_error\b|\bpermission_error\b/i, "auth"],
  [/\bresource_exhausted\b|\brate_limit_error\b|\brate_limit_exceeded\b/i, "rate_limit"],
  [/\boverloaded_error\b/i, "overloaded"],
  [/\brequest_too_large\b/i, "payload_too_large"],
];

const RATE_LIMIT_WORDING = /rate[ _-]?limit|too many requests|throttl|quota exceeded for\b|requests per (?:minute|min|day)/i;
const OVERLOADED_WORDING = /overloaded|server is busy|(?:at|over|no|insufficient) capacity|high demand|service unavailable|temporarily unavailable/i;
const BILLING_WORDING =
  /insufficient[ _](?:quota|credits?|balance|funds)|exceeded your current quota|out of credits|more credits|credit balance|billing|payment required/i;
const AUTH_WORDING =
  /unauthori[sz]ed|invalid[ _-]api[ _-]key|incorrect api key|invalid x-api-key|no api key|missing api key|authentication failed|invalid authentication|permission denied|forbidden/i;
const MODEL_MISSING_WORDING =
  /\bmodel\b[^\n]*\b(?:does not exist|not found|is not supported)\b|no endpoints found|unknown model|is not found for api version/i;
const SERVER_ERROR_WORDING = /internal server error|bad gateway|internal error|upstream error/i;
const TRANSPORT_WORDING =
  /connection error|ECONNRESET|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|EPIPE|socket hang up|timed out|timeout|fetch failed|\bterminated\b|network error/i;

// 402 from some gateways means a usage window ran out, not that the account is unpaid.
const TRANSIENT_402_WORDING = /try again|resets? at|retry|temporarily/i;
const QUOTA_429_WORDING = /insufficient_quota|exceeded your current quota|billing/i;
const LEADING_STATUS = /^\s*(?:HTTP\s*|status(?: code)?\s*|error:?\s*)?([1-5]\d\d)(?!\d)/i;

const OVERFLOW_PATTERNS = getOverflowPatterns();
// pi-ai excludes throttling text from overflow too: Bedrock throttles with "Too many tokens, please wait".
const NOT_OVERFLOW_WORDING = /rate limit|too many requests|throttl/i;

function looksLikeContextOverflow(text: string): boolean {
  return !NOT_OVERFLOW_WORDING.test(text) && OVERFLOW_PATTERNS.some((pattern) => pattern.test(text));
}

function firstMatchingRule(rules: readonly Rule[], text: string): ProviderErrorClass | undefined {
  return rules.find(([pattern]) => pattern.test(text))?.[1];
}

function effectiveStatus(failure: ProviderFailure): number | undefined {
  const { status } = failure;
  if (status !== undefined && Number.isInteger(status) && status >= 100 && status <= 599) return status;
  const leading = LEADING_STATUS.exec(failure.message)?.[1];
  return leading === undefined ? undefined : Number(leading);
}

function classifyByStatus(status: number, text: string): ProviderErrorClass | undefined {
  if (status === 401 || status === 403) return "auth";
  if (status === 402) return TRANSIENT_402_WORDING.test(text) ? "rate_limit" : "billing";
  if (status === 404) return "model_not_found";
  if (status === 408 || status === 504) return "timeout";
  if (status === 413) return "payload_too_large";
  if (status === 400 || status === 422) return looksLikeContextOverflow(text) ? "context_overflow" : "format_error";
  if (status === 429) {
    // Gemini words per-minute limits like an empty quota but names a delay; an empty account never does.
    const namesADelay = parseRetryAfterMs({ message: text }) !== undefined;
    return QUOTA_429_WORDING.test(text) && !namesADelay ? "billing" : "rate_limit";
  }
  if (status === 503 || status === 529) return "overloaded";
  if (status >= 500 && status <= 599) return "server_error";
  return undefined;
}

function classifyByWording(text: string): ProviderErrorClass | undefined {
  if (RATE_LIMIT_WORDING.test(text)) return "rate_limit";
  if (looksLikeContextOverflow(text)) return "context_overflow";
  if (OVERLOADED_WORDING.test(text)) return "overloaded";
  if (BILLING_WORDING.test(text)) return "billing";
  if (AUTH_WORDING.test(text)) return "auth";
  if (MODEL_MISSING_WORDING.test(text)) return "model_not_found";
  if (SERVER_ERROR_WORDING.test(text)) return "server_error";
  return undefined;
}

function classifyText(text: string, status: number | undefined): ProviderErrorClass {
  return (
    firstMatchingRule(PROVIDER_SPECIFIC_RULES, text) ??
    (status === undefined ? undefined : classifyByStatus(status, text)) ??
    firstMatchingRule(STRUCTURED_CODE_RULES, text) ??
    classifyByWording(text) ??
    (TRANSPORT_WORDING.test(text) ? "timeout" : undefined) ??
    "unknown"
  );
}

function hintFor(errorClass: ProviderErrorClass): ErrorRecoveryHint {
  const none = { retryable: false, shouldCompress: false, shouldFallback: false, shouldRotateCredential: false };
  switch (errorClass) {
    case "auth":
    case "billing":
      return { ...none, shouldFallback: true, shouldRotateCredential: true };
    case "rate_limit":
      return { ...none, retryable: true, shouldFallback: true, shouldRotateCredential: true };
    case "overloaded":
    case "server_error":
    case "timeout":
      return { ...none, retryable: true, shouldFallback: true };
    case "context_overflow":
    case "payload_too_large":
      return { ...none, shouldCompress: true };
    case "model_not_found":
      return { ...none, shouldFallback: true };
    case "unknown":
      return { ...none, retryable: true };
    case "auth_permanent":
    case "format_error":
      return none;
  }
}

function describeWait(ms: number): string {
  if (ms < 60_000) return `about ${Math.max(1, Math.ceil(ms / 1000))} seconds`;
  return `about ${Math.ceil(ms / 60_000)} minutes`;
}

function userMessageFor(errorClass: ProviderErrorClass, status: number | undefined, retryAfterMs?: number): string {
  const http = status === undefined ? "" : ` (HTTP ${status})`;
  switch (errorClass) {
    case "auth":
      return `The AI provider rejected the configured API key${http}, so I can't answer right now. The bot's operator needs to check the model credentials.`;
    case "auth_permanent":
      return `The AI provider keeps rejecting the configured API key${http}, so I can't answer until it is replaced. The bot's operator needs to update the model credentials.`;
    case "billing":
      return `The AI provider refused the request because the account is out of credits or quota${http}. The bot's operator needs to check the provider's billing.`;
    case "rate_limit": {
      const wait = retryAfterMs === undefined ? "in a little while" : `in ${describeWait(retryAfterMs)}`;
      return `The AI provider is limiting how many requests I can send right now${http}. Please try again ${wait}.`;
    }
    case "overloaded":
      return `The AI provider is overloaded at the moment${http}. Please try again in a minute or two.`;
    case "server_error":
      return `The AI provider had an internal error${http}. Please try again shortly.`;
    case "timeout":
      return status === undefined
        ? "I couldn't reach the AI provider: the connection failed or timed out. Please try again shortly."
        : `The AI provider took too long to answer${http}. Please try again shortly.`;
    case "context_overflow":
      return `This conversation has grown too long for the model's context window${http}. Compacting the history or starting a new conversation will fix it.`;
    case "payload_too_large":
      return `The request was too large for the AI provider to accept${http}, probably because of a large attachment or tool output. Try a smaller input or start a new conversation.`;
    case "model_not_found":
      return `The configured model isn't available from the AI provider${http}. The bot's operator needs to check the model name.`;
    case "format_error":
      return `The AI provider rejected the request as malformed${http}. Starting a new conversation may help; if not, please tell the bot's operator.`;
    case "unknown":
      return `The AI provider returned an unexpected error${http}. Please try again; if it keeps happening, tell the bot's operator.`;
  }
}

/** Turns a provider failure (pi-ai's errorMessage plus whatever HTTP details are known) into a recovery decision. */
export function classifyProviderError(failure: ProviderFailure): ClassifiedError {
  const status = effectiveStatus(failure);
  const matched = classifyText(failure.message, status);
  const errorClass = matched === "auth" && (failure.previousAuthFailures ?? 0) >= 1 ? "auth_permanent" : matched;
  const retryAfterMs = parseRetryAfterMs({ message: failure.message, headers: failure.headers, now: failure.now });
  const knownSecrets = failure.knownSecrets ?? [];
  return {
    errorClass,
    ...(status === undefined ? {} : { status }),
    message: redactSecrets(failure.message.trim(), knownSecrets),
    hint: hintFor(errorClass),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    userMessage: redactSecrets(userMessageFor(errorClass, status, retryAfterMs), knownSecrets),
  };
}
