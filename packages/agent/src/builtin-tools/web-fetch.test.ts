import { describe, it, expect, beforeEach, afterEach } from "vitest";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { silentLogger } from "../observability/logger.js";
import type { AnyToolDefinition, ToolContext, ToolResult } from "../tools/types.js";
import { webFetchTool } from "./web-fetch.js";

function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { signal, toolCallId: "call-1", sessionId: "session-1", logger: silentLogger };
}

function call(tool: AnyToolDefinition, args: Record<string, unknown>): Promise<ToolResult> {
  return tool.handler(args, toolContext());
}

let server: http.Server;
let origin: string;
let port: number;
let requestedPaths: string[];

const PAGE_HTML = `<html><head><title>Test Page</title><script>alert("x")</script></head>
<body><h1>Welcome</h1><p>Some <b>bold</b> text and a <a href="/about">link</a>.</p></body></html>`;

beforeEach(async () => {
  requestedPaths = [];
  server = http.createServer((request, response) => {
    const path = request.url ?? "/";
    requestedPaths.push(path);
    if (path === "/page") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE_HTML);
    } else if (path === "/data") {
      response.writeHead(200, { "content-type": "application/json" }).end('{"name":"hermes","tags":["a","b"]}');
    } else if (path === "/plain") {
      response.writeHead(200, { "content-type": "text/plain" }).end("just   text\n  kept as is");
    } else if (path === "/latin1") {
      response.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    } else if (path === "/big") {
      response.writeHead(200, { "content-type": "text/plain" }).end("a".repeat(200_000));
    } else if (path === "/image") {
      response.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    } else if (path === "/to-loopback") {
      response.writeHead(302, { location: `http://127.0.0.1:${port}/secret` }).end();
    } else if (path === "/to-internal") {
      response.writeHead(301, { location: "http://internal.test/secret" }).end();
    } else if (path === "/to-page") {
      response.writeHead(307, { location: "/page" }).end();
    } else if (path === "/loop") {
      response.writeHead(302, { location: "/loop" }).end();
    } else {
      response.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1><p>No such page here.</p>");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("web_fetch address guard", () => {
  const attempts: string[] = [];
  const recordingFetch: typeof fetch = async (input) => {
    attempts.push(String(input));
    throw new Error("the guard should have refused before fetching");
  };
  const lookup = async (hostname: string): Promise<string[]> => {
    const table: Record<string, string[]> = {
      "internal.test": ["10.0.0.5"],
      "mixed.test": ["93.184.216.34", "192.168.1.20"],
      "localhost": ["93.184.216.34"], // a lying resolver must not make localhost fetchable
    };
    const addresses = table[hostname];
    if (addresses === undefined) throw new Error(`ENOTFOUND ${hostname}`);
    return addresses;
  };

  it.each([
    () => `${origin}/page`,
    () => "http://localhost/",
    () => "http://LOCALHOST./admin",
    () => "http://app.localhost/",
    () => "http://[::1]/",
    () => "http://[::ffff:127.0.0.1]/",
    () => "http://0x7f.1/",
    () => "http://2130706433/",
    () => "http://0177.0.0.1/",
    () => "http://169.254.169.254/latest/meta-data/",
    () => "http://10.1.2.3/",
    () => "http://[fd00::1]/",
    () => "http://internal.test/",
    () => "http://mixed.test/",
  ])("refuses private target %#", async (makeUrl) => {
    attempts.length = 0;
    const tool = webFetchTool({ fetch: recordingFetch, lookup });
    const result = await call(tool, { url: makeUrl() });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^refused: /);
    expect(attempts).toEqual([]);
  });

  it.each([
    ["ftp://example.test/file", /only http and https/],
    ["file:///etc/passwd", /only http and https/],
    ["http://user:secret@example.test/", /credentials/],
    ["not a url", /invalid URL/],
    ["http://unknown.test/", /could not resolve host unknown\.test/],
  ])("refuses %s", async (url, message) => {
    attempts.length = 0;
    const result = await call(webFetchTool({ fetch: recordingFetch, lookup }), { url });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(message);
    expect(attempts).toEqual([]);
  });
});

describe("web_fetch redirects", () => {
  // public.test "resolves" to a public address but is served by the local test server.
  const lookup = async (hostname: string): Promise<string[]> => {
    if (hostname === "public.test") return ["93.184.216.34"];
    if (hostname === "internal.test") return ["10.0.0.5"];
    throw new Error(`ENOTFOUND ${hostname}`);
  };
  const routedFetch: typeof fetch = async (input, init) => {
    if (typeof input !== "string") throw new Error("the tool passes URLs as strings");
    const url = new URL(input);
    if (url.hostname !== "public.test") throw new Error(`unexpected host ${url.hostname}`);
    url.hostname = "127.0.0.1";
    url.port = String(port);
    return fetch(url, init);
  };

  it("refuses a redirect from an allowed host to a loopback address", async () => {
    const tool = webFetchTool({ fetch: routedFetch, lookup });
    const result = await call(tool, { url: "http://public.test/to-loopback" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain(`redirect to http://127.0.0.1:${port}/secret refused`);
    expect(requestedPaths).toEqual(["/to-loopback"]);
  });

  it("refuses a redirect to a host that resolves to a private address", async () => {
    const tool = webFetchTool({ fetch: routedFetch, lookup });
    const result = await call(tool, { url: "http://public.test/to-internal" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("redirect to http://internal.test/secret refused");
    expect(result.content).toContain("10.0.0.5");
  });

  it("follows an allowed relative redirect and reports the final URL", async () => {
    const tool = webFetchTool({ fetch: routedFetch, lookup });
    const result = await call(tool, { url: "http://public.test/to-page" });
    expect(result.isError).toBeFalsy();
    expect(result.content).toMatch(/^URL: http:\/\/public\.test\/page\nStatus: 200/);
    expect(requestedPaths).toEqual(["/to-page", "/page"]);
  });

  it("stops after the redirect limit", async () => {
    const tool = webFetchTool({ allowPrivateNetwork: true, maxRedirects: 3 });
    const result = await call(tool, { url: `${origin}/loop` });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("too many redirects");
    expect(requestedPaths).toHaveLength(4);
  });
});

describe("web_fetch content", () => {
  const tool = (): AnyToolDefinition => webFetchTool({ allowPrivateNetwork: true });

  it("reaches a local server when private networks are allowed and converts HTML to text", async () => {
    const result = await call(tool(), { url: `${origin}/page` });
    expect(result.isError).toBeFalsy();
    expect(result.content).toBe(
      `URL: ${origin}/page\nStatus: 200 OK\nContent-Type: text/html; charset=utf-8\n\n` +
        `Test Page\n\nWelcome\n\nSome bold text and a link (${origin}/about).`,
    );
  });

  it("pretty-prints JSON", async () => {
    const result = await call(tool(), { url: `${origin}/data` });
    expect(result.isError).toBeFalsy();
    expect(result.content).toContain('{\n  "name": "hermes",\n  "tags": [\n    "a",\n    "b"\n  ]\n}');
  });

  it("returns other text as it is", async () => {
    const result = await call(tool(), { url: `${origin}/plain` });
    expect(result.content.endsWith("\n\njust   text\n  kept as is")).toBe(true);
  });

  it("decodes the declared charset", async () => {
    const result = await call(tool(), { url: `${origin}/latin1` });
    expect(result.content.endsWith("\n\ncafé")).toBe(true);
  });

  it("cuts the body at maxBytes and says so", async () => {
    const result = await call(webFetchTool({ allowPrivateNetwork: true, maxBytes: 1_000 }), { url: `${origin}/big` });
    expect(result.isError).toBeFalsy();
    expect(result.content).toContain(`\n\n${"a".repeat(1_000)}\n\n[body cut at 1000 bytes`);
    expect(result.details).toMatchObject({ bytes: 1_000, bodyTruncated: true });
  });

  it("truncates the text to max_chars with a note", async () => {
    const result = await call(tool(), { url: `${origin}/big`, max_chars: 50 });
    expect(result.content).toContain(`\n\n${"a".repeat(50)}\n\n[truncated: showing the first 50 of 200000 characters]`);
  });

  it("refuses binary content", async () => {
    const result = await call(tool(), { url: `${origin}/image` });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("unsupported content type (image/png)");
  });

  it("reports HTTP errors with a short excerpt", async () => {
    const result = await call(tool(), { url: `${origin}/missing` });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("Status: 404 Not Found");
    expect(result.content).toContain("HTTP error 404; the response began:\nNot Found\n\nNo such page here.");
    expect(result.details).toMatchObject({ status: 404 });
  });

  it("reports a refused connection as a value", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await call(tool(), { url: `http://127.0.0.1:${closedPort}/` });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^request failed: /);
  });

  it("reports cancellation when the run is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await tool().handler({ url: `${origin}/page` }, toolContext(controller.signal));
    expect(result).toMatchObject({ isError: true, content: "cancelled" });
  });
});
