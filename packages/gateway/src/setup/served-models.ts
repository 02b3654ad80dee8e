import type { ModelBinding } from "@hermes/agent";
import { describeRequestFailure, jsonBody, type ProbeDeps } from "./probe-result.js";

/** `ids` is absent when the endpoint has no model list, which is no fault: the model request itself decides. */
export type ServedModels = { ok: true; ids?: string[] } | { ok: false; error: string };

// The version Anthropic's SDK sends; the models list, like the messages API, requires one.
const ANTHROPIC_VERSION = "2023-06-01";

/**
 * The ids a custom endpoint lists, asked the way its protocol asks: GET {base}/models with a bearer token for the
 * OpenAI APIs, GET {base}/v1/models with x-api-key for Anthropic Messages (whose SDK appends /v1 itself).
 */
export async function servedModels(binding: ModelBinding, deps: ProbeDeps): Promise<ServedModels> {
  const base = binding.model.baseUrl;
  const key = binding.apiKey ?? "";
  const request: { url: string; headers: Record<string, string> } =
    binding.model.api === "anthropic-messages"
      ? { url: `${base}/v1/models?limit=1000`, headers: { "x-api-key": key, "anthropic-version": ANTHROPIC_VERSION } }
      : { url: `${base}/models`, headers: { authorization: `Bearer ${key}` } };
  let response: Response;
  try {
    response = await deps.fetch(request.url, { headers: request.headers, signal: AbortSignal.timeout(deps.timeoutMs) });
  } catch (error) {
    return { ok: false, error: `nothing answers at ${base}: ${describeRequestFailure(error, deps.timeoutMs)}` };
  }
  if (response.status === 401 || response.status === 403) {
    return { ok: false, error: `${base} refused the API key (${response.status} ${response.statusText}): check HERMES_API_KEY` };
  }
  // Both protocols answer { data: [{ id, … }] }; anything else means the server keeps no list.
  const body = response.ok ? await jsonBody(response) : undefined;
  const data = Array.isArray(body?.data) ? (body.data as unknown[]) : undefined;
  if (!data) return { ok: true };
  const ids = data.map((entry) => (typeof entry === "object" && entry !== null ? (entry as { id?: unknown }).id : undefined)).filter((id): id is string => typeof id === "string");
  return { ok: true, ids };
}
