import { Type } from "@sinclair/typebox";
import { defineTool, type AnyToolDefinition, type ToolResult } from "../tools/types.js";
import { decodeEntities } from "./html-entities.js";

export type SearchBackend = { kind: "searxng"; url: string } | { kind: "brave"; apiKey: string; url?: string };

export interface WebSearchOptions {
  backend?: SearchBackend;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

type SearchOutcome = { ok: true; hits: SearchHit[] } | { ok: false; error: string };

const DEFAULT_RESULTS = 5;
const MAX_RESULTS = 10;
const BRAVE_DEFAULT_URL = "https://api.search.brave.com";

const parameters = Type.Object({
  query: Type.String({ minLength: 1, description: "What to search the web for." }),
  max_results: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_RESULTS, description: "Number of results (default 5, at most 10)." }),
  ),
});

export function webSearchTool(options: WebSearchOptions = {}): AnyToolDefinition {
  const { backend } = options;
  const fetchImpl = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 15_000;
  // Error text may echo request details; the key must never reach the model or the logs through it.
  const redact = (text: string): string =>
    backend?.kind === "brave" && backend.apiKey !== "" ? text.split(backend.apiKey).join("[redacted]") : text;

  const search = async (query: string, count: number, signal: AbortSignal): Promise<SearchOutcome> => {
    if (backend === undefined) return { ok: false, error: "web search is not configured" };
    const request = buildRequest(backend, query, count);
    const response = await fetchImpl(request.url, { headers: request.headers, signal });
    if (!response.ok) {
      const excerpt = (await response.text().catch(() => "")).replace(/\s+/g, " ").trim().slice(0, 200);
      const statusLine = `${response.status} ${response.statusText}`.trim();
      return { ok: false, error: `search backend returned HTTP ${statusLine}` + (excerpt === "" ? "" : `: ${excerpt}`) };
    }
    let body: unknown;
    try {
      body = JSON.parse(await response.text());
    } catch {
      return { ok: false, error: "search backend returned a response that is not valid JSON" };
    }
    const hits = backend.kind === "searxng" ? searxngHits(body) : braveHits(body);
    if (hits === undefined) return { ok: false, error: "search backend returned JSON without a result list" };
    return { ok: true, hits: hits.slice(0, count) };
  };

  return defineTool({
    name: "web_search",
    description:
      "Search the web and return a numbered list of results (title, URL, snippet). Use web_fetch to read a result.",
    guidance:
      "Use web_search when you need current information or sources you do not already know: recent events, " +
      "documentation locations, facts worth checking. Write a focused query of a few keywords rather than a " +
      "question, scan the snippets, then read the most promising pages with web_fetch before answering; cite the " +
      "URLs you relied on. Search again with different words when the results miss.",
    parameters,
    concurrency: "parallel-safe",
    timeoutMs: timeoutMs + 5_000,
    isAvailable: () => backend !== undefined,
    handler: async (args, context): Promise<ToolResult> => {
      const count = Math.min(Math.max(1, Math.trunc(args.max_results ?? DEFAULT_RESULTS)), MAX_RESULTS);
      const details = { backend: backend?.kind ?? "none" };
      const timeout = AbortSignal.timeout(timeoutMs);
      let outcome: SearchOutcome;
      try {
        outcome = await search(args.query, count, AbortSignal.any([context.signal, timeout]));
      } catch (error) {
        const reason = context.signal.aborted
          ? "cancelled"
          : timeout.aborted
            ? `timed out after ${timeoutMs / 1000}s`
            : `request failed: ${error instanceof Error ? error.message : String(error)}`;
        outcome = { ok: false, error: `web search ${reason}` };
      }
      if (!outcome.ok) return { content: redact(outcome.error), isError: true, details };
      if (outcome.hits.length === 0) {
        return { content: `No results for ${JSON.stringify(args.query)}.`, details: { ...details, count: 0 } };
      }
      return { content: redact(formatHits(outcome.hits)), details: { ...details, count: outcome.hits.length } };
    },
  });
}

function buildRequest(backend: SearchBackend, query: string, count: number): { url: string; headers: Record<string, string> } {
  if (backend.kind === "searxng") {
    const params = new URLSearchParams({ q: query, format: "json" });
    return { url: `${trimSlashes(backend.url)}/search?${params}`, headers: { accept: "application/json" } };
  }
  const params = new URLSearchParams({ q: query, count: String(count) });
  return {
    url: `${trimSlashes(backend.url ?? BRAVE_DEFAULT_URL)}/res/v1/web/search?${params}`,
    headers: { accept: "application/json", "X-Subscription-Token": backend.apiKey },
  };
}

function searxngHits(body: unknown): SearchHit[] | undefined {
  const results = isRecord(body) ? body["results"] : undefined;
  return Array.isArray(results) ? readHits(results, "content") : undefined;
}

function braveHits(body: unknown): SearchHit[] | undefined {
  if (!isRecord(body)) return undefined;
  const web = body["web"];
  // Brave omits the `web` section entirely when nothing matched.
  if (web === undefined) return [];
  const results = isRecord(web) ? web["results"] : undefined;
  return Array.isArray(results) ? readHits(results, "description") : undefined;
}

function readHits(results: unknown[], snippetField: string): SearchHit[] {
  const hits: SearchHit[] = [];
  for (const item of results) {
    if (!isRecord(item) || typeof item["url"] !== "string" || item["url"] === "") continue;
    const title = typeof item["title"] === "string" ? plainText(item["title"]) : "";
    const snippet = typeof item[snippetField] === "string" ? plainText(item[snippetField]) : "";
    hits.push({ title: title === "" ? item["url"] : title, url: item["url"], snippet });
  }
  return hits;
}

function formatHits(hits: SearchHit[]): string {
  return hits
    .map((hit, index) => {
      const lines = [`${index + 1}. ${hit.title}`, `   ${hit.url}`];
      if (hit.snippet !== "") lines.push(`   ${hit.snippet}`);
      return lines.join("\n");
    })
    .join("\n\n");
}

// Snippets arrive with highlighting markup (<strong>) and entities; the model needs neither.
function plainText(text: string): string {
  return decodeEntities(text.replace(/<[^>]*>/g, "")).replace(/\s+/g, " ").trim();
}

function trimSlashes(url: string): string {
  return url.replace(/\/+$/, "");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
