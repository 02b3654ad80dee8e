import { describe, it, expect, beforeEach, afterEach } from "vitest";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { silentLogger } from "../observability/logger.js";
import type { AnyToolDefinition, ToolContext, ToolResult } from "../tools/types.js";
import { webSearchTool } from "./web-search.js";

const API_KEY = "brave-key-0123456789";

function toolContext(): ToolContext {
  return { signal: new AbortController().signal, toolCallId: "call-1", sessionId: "session-1", logger: silentLogger };
}

function call(tool: AnyToolDefinition, args: Record<string, unknown>): Promise<ToolResult> {
  return tool.handler(args, toolContext());
}

interface SeenRequest {
  url: URL;
  token: string | undefined;
}

let server: http.Server;
let origin: string;
let seen: SeenRequest[];
let reply: (url: URL, response: http.ServerResponse) => void;

function json(response: http.ServerResponse, body: unknown, status = 200): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

beforeEach(async () => {
  seen = [];
  reply = (_url, response) => json(response, {}, 404);
  server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const token = request.headers["x-subscription-token"];
    seen.push({ url, token: typeof token === "string" ? token : undefined });
    reply(url, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("web_search availability", () => {
  it("is unavailable without a backend and refuses to run", async () => {
    const tool = webSearchTool();
    expect(await tool.isAvailable?.()).toBe(false);
    const result = await call(tool, { query: "anything" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("not configured");
  });

  it("is available with a backend", async () => {
    expect(await webSearchTool({ backend: { kind: "searxng", url: origin } }).isAvailable?.()).toBe(true);
  });
});

describe("web_search with SearxNG", () => {
  it("queries the JSON API and lists at most max_results results", async () => {
    reply = (_url, response) =>
      json(response, {
        results: [
          { title: "First &amp; best", url: "https://one.test/", content: "Snippet   one." },
          { title: "", url: "https://two.test/", content: "" },
          { title: "Third", url: "https://three.test/", content: "Snippet three." },
        ],
      });
    const tool = webSearchTool({ backend: { kind: "searxng", url: `${origin}/` } });
    const result = await call(tool, { query: "hermes gateway", max_results: 2 });
    expect(result.isError).toBeFalsy();
    expect(result.content).toBe("1. First & best\n   https://one.test/\n   Snippet one.\n\n2. https://two.test/\n   https://two.test/");
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url.pathname).toBe("/search");
    expect(seen[0]?.url.searchParams.get("q")).toBe("hermes gateway");
    expect(seen[0]?.url.searchParams.get("format")).toBe("json");
    expect(result.details).toMatchObject({ backend: "searxng", count: 2 });
  });

  it("says so when nothing was found", async () => {
    reply = (_url, response) => json(response, { results: [] });
    const result = await call(webSearchTool({ backend: { kind: "searxng", url: origin } }), { query: "zzqx" });
    expect(result.isError).toBeFalsy();
    expect(result.content).toBe('No results for "zzqx".');
  });

  it("reports a body that is not JSON as an error", async () => {
    reply = (_url, response) => response.writeHead(200, { "content-type": "text/html" }).end("<html>oops</html>");
    const result = await call(webSearchTool({ backend: { kind: "searxng", url: origin } }), { query: "q" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("not valid JSON");
  });

  it("reports HTTP errors", async () => {
    reply = (_url, response) => response.writeHead(429, { "content-type": "text/plain" }).end("Too many requests");
    const result = await call(webSearchTool({ backend: { kind: "searxng", url: origin } }), { query: "q" });
    expect(result.isError).toBe(true);
    expect(result.content).toBe("search backend returned HTTP 429 Too Many Requests: Too many requests");
  });
});

describe("web_search with Brave", () => {
  const braveTool = (): AnyToolDefinition => webSearchTool({ backend: { kind: "brave", apiKey: API_KEY, url: origin } });

  it("sends the key as a header and the count as a parameter", async () => {
    reply = (_url, response) =>
      json(response, {
        web: {
          results: [
            { title: "Brave <strong>one</strong>", url: "https://b1.test/", description: "About <strong>x</strong> &quot;y&quot;" },
            { title: "Brave two", url: "https://b2.test/", description: "Second." },
          ],
        },
      });
    const result = await call(braveTool(), { query: "x y", max_results: 3 });
    expect(result.isError).toBeFalsy();
    expect(result.content).toBe('1. Brave one\n   https://b1.test/\n   About x "y"\n\n2. Brave two\n   https://b2.test/\n   Second.');
    expect(seen[0]?.url.pathname).toBe("/res/v1/web/search");
    expect(seen[0]?.url.searchParams.get("q")).toBe("x y");
    expect(seen[0]?.url.searchParams.get("count")).toBe("3");
    expect(seen[0]?.token).toBe(API_KEY);
  });

  it("treats a response without a web section as no results", async () => {
    reply = (_url, response) => json(response, { type: "search", query: { original: "q" } });
    const result = await call(braveTool(), { query: "q" });
    expect(result.isError).toBeFalsy();
    expect(result.content).toBe('No results for "q".');
    expect(seen[0]?.url.searchParams.get("count")).toBe("5");
  });

  it("keeps the API key out of error text", async () => {
    reply = (_url, response) =>
      response.writeHead(401, { "content-type": "text/plain" }).end(`invalid subscription token ${API_KEY}`);
    const result = await call(braveTool(), { query: "q" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("HTTP 401");
    expect(result.content).toContain("[redacted]");
    expect(result.content).not.toContain(API_KEY);
  });

  it("reports an unreachable backend as a value", async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server = http.createServer();
    const result = await call(braveTool(), { query: "q" });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^web search request failed: /);
  });
});
