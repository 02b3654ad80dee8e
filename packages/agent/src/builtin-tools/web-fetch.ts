import { Type } from "@sinclair/typebox";
import { defineTool, type AnyToolDefinition, type ToolResult } from "../tools/types.js";
import type { Agent } from "undici";
import { guardedDispatcher } from "./connect-guard.js";
import { checkFetchTarget, lookupAllAddresses, type FetchTargetPolicy, type LookupHost } from "./fetch-target.js";
import { htmlToText } from "./html-to-text.js";
import { classifyMediaType, decodeBody, discardBody, mediaType, readCappedBody } from "./http-body.js";

export interface WebFetchOptions {
  /** Lets the tool reach loopback, private and other reserved addresses; for trusted local setups only. */
  allowPrivateNetwork?: boolean;
  maxBytes?: number;
  maxChars?: number;
  timeoutMs?: number;
  maxRedirects?: number;
  fetch?: typeof fetch;
  lookup?: LookupHost;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const ERROR_EXCERPT_CHARS = 500;
const REQUEST_HEADERS = {
  accept: "text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.8,*/*;q=0.1",
  "user-agent": "HermesGateway/0.1 (web_fetch tool)",
};

const parameters = Type.Object({
  url: Type.String({ description: "Absolute http:// or https:// URL to fetch." }),
  max_chars: Type.Optional(
    Type.Integer({ minimum: 1, description: "Return at most this many characters of text (default and cap: 50000)." }),
  ),
});

type Hop = { ok: true; response: Response; url: URL; redirects: string[] } | { ok: false; error: string };

export function webFetchTool(options: WebFetchOptions = {}): AnyToolDefinition {
  const maxBytes = options.maxBytes ?? 2_000_000;
  const maxChars = options.maxChars ?? 50_000;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const maxRedirects = options.maxRedirects ?? 5;
  const policy: FetchTargetPolicy = {
    allowPrivateNetwork: options.allowPrivateNetwork ?? false,
    lookup: options.lookup ?? lookupAllAddresses,
  };
  // The built-in fetch dials through a dispatcher that judges the address actually connected to (see connect-guard).
  let dispatcher: Promise<Agent> | undefined;
  const fetchImpl: typeof fetch =
    options.fetch ??
    (async (input, init) => {
      dispatcher ??= guardedDispatcher(policy);
      return fetch(input, { ...init, dispatcher: await dispatcher } as RequestInit);
    });

  const followRedirects = async (start: URL, signal: AbortSignal): Promise<Hop> => {
    const redirects: string[] = [];
    let url = start;
    for (;;) {
      const response = await fetchImpl(url.href, { redirect: "manual", signal, headers: REQUEST_HEADERS });
      const location = response.headers.get("location");
      if (!REDIRECT_STATUSES.has(response.status) || location === null) return { ok: true, response, url, redirects };
      await discardBody(response);
      if (redirects.length >= maxRedirects) return { ok: false, error: `too many redirects (more than ${maxRedirects})` };
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        return { ok: false, error: `redirect to an invalid location: ${JSON.stringify(location)}` };
      }
      // Every hop is checked again: an allowed public page must not bounce the request into the private network.
      const check = await checkFetchTarget(next, policy);
      if (!check.ok) return { ok: false, error: `redirect to ${next.href} refused: ${check.error}` };
      redirects.push(url.href);
      url = check.url;
    }
  };

  return defineTool({
    name: "web_fetch",
    description:
      "Fetch a web page or HTTP API by URL and return its readable text: HTML is converted to plain text with links " +
      "as `text (url)`, JSON is pretty-printed. Only public http(s) addresses; binary content is not supported.",
    guidance:
      "Use web_fetch to read a specific page whose URL you know or found with web_search, e.g. documentation, an " +
      "article or a JSON API. It returns text, not a rendered page, so content built by JavaScript may be missing. " +
      "Long pages are cut; pass a smaller max_chars when you only need the beginning. Do not use it for local or " +
      "private network addresses (they are refused) or to download files.",
    parameters,
    concurrency: "parallel-safe",
    timeoutMs: timeoutMs + 10_000,
    handler: async (args, context): Promise<ToolResult> => {
      const charLimit = Math.max(1, Math.min(args.max_chars ?? maxChars, maxChars));
      const check = await checkFetchTarget(args.url, policy);
      if (!check.ok) return failure(check.error, { url: args.url });

      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = AbortSignal.any([context.signal, timeout]);
      try {
        const hop = await followRedirects(check.url, signal);
        if (!hop.ok) return failure(hop.error, { url: args.url });
        return await readResponse(hop.response, hop.url, hop.redirects, charLimit, maxBytes);
      } catch (error) {
        if (context.signal.aborted) return failure("cancelled", { url: args.url });
        if (timeout.aborted) return failure(`timed out after ${timeoutMs / 1000}s`, { url: args.url });
        return failure(`request failed: ${describeFetchError(error)}`, { url: args.url });
      }
    },
  });
}

async function readResponse(
  response: Response,
  url: URL,
  redirects: string[],
  charLimit: number,
  maxBytes: number,
): Promise<ToolResult> {
  const contentType = response.headers.get("content-type");
  const kind = classifyMediaType(mediaType(contentType));
  const header = `URL: ${url.href}\nStatus: ${response.status} ${response.statusText}`.trimEnd() +
    `\nContent-Type: ${contentType ?? "(none)"}`;
  const details: Record<string, unknown> = { url: url.href, status: response.status, contentType, redirects };

  if (response.status >= 400) {
    let excerpt = "";
    if (kind !== "unsupported") {
      const body = await readCappedBody(response, Math.min(maxBytes, 64_000));
      excerpt = renderBody(body.bytes, contentType, kind, url).slice(0, ERROR_EXCERPT_CHARS);
    } else {
      await discardBody(response);
    }
    const text = `${header}\n\nHTTP error ${response.status}` + (excerpt === "" ? "" : `; the response began:\n${excerpt}`);
    return { content: text, isError: true, details };
  }

  if (kind === "unsupported") {
    await discardBody(response);
    const type = mediaType(contentType) || "none given";
    return {
      content: `${header}\n\nunsupported content type (${type}): web_fetch reads only HTML, JSON and text`,
      isError: true,
      details,
    };
  }

  const body = await readCappedBody(response, maxBytes);
  const text = renderBody(body.bytes, contentType, kind, url);
  const notes: string[] = [];
  if (body.truncated) notes.push(`[body cut at ${maxBytes} bytes: the page is larger than the download limit]`);
  if (text.length > charLimit) notes.push(`[truncated: showing the first ${charLimit} of ${text.length} characters]`);
  const shown = text.slice(0, charLimit);
  const content = `${header}\n\n${shown}` + (notes.length > 0 ? `\n\n${notes.join("\n")}` : "");
  return {
    content,
    details: { ...details, bytes: body.bytes.byteLength, bodyTruncated: body.truncated, chars: text.length },
  };
}

function renderBody(bytes: Uint8Array, contentType: string | null, kind: "html" | "json" | "text", url: URL): string {
  const raw = decodeBody(bytes, contentType);
  if (kind === "html") return htmlToText(raw, { baseUrl: url.href });
  if (kind === "json") {
    try {
      return JSON.stringify(JSON.parse(raw) as unknown, null, 2);
    } catch {
      return raw; // cut off by the size cap or simply malformed; the raw text is still useful
    }
  }
  return raw;
}

function failure(error: string, details: Record<string, unknown>): ToolResult {
  return { content: error, isError: true, details };
}

// Node's fetch reports network failures as "fetch failed" with the useful part (ECONNREFUSED, ...) in `cause`.
function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error && cause.message !== "") return `${error.message} (${cause.message})`;
  return error.message;
}
