import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall, type ToolResultMessage } from "@mariozechner/pi-ai";
import { recordingLogger, type RecordingLogger } from "../../../../test/support/recording-logger.js";
import { waitUntil } from "../../../../test/support/wait-until.js";
import { startFakeMcpHttpServer, type FakeMcpHttpServer, type FakeMcpHttpServerOptions } from "../../../../test/fakes/mcp/http-server.js";
import { fauxAgentFixture } from "../testing/faux.js";
import { ToolRegistry } from "../tools/registry.js";
import type { ToolResult } from "../tools/types.js";
import { McpManager, type McpManagerOptions } from "./index.js";

const SECRET = "Bearer hdr-s3cret-value";

let logger: RecordingLogger;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(() => {
  logger = recordingLogger();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(options: FakeMcpHttpServerOptions = {}): Promise<FakeMcpHttpServer> {
  const started = await startFakeMcpHttpServer({ requiredHeaders: { Authorization: SECRET }, ...options });
  cleanups.push(() => started.close());
  return started;
}

function manager(url: string, options: Partial<McpManagerOptions> = {}): McpManager {
  const made = new McpManager({ servers: [{ name: "web", url, headers: { Authorization: SECRET } }], logger, restartBackoff: { initialMs: 20, maxMs: 200 }, ...options });
  cleanups.push(() => made.close());
  return made;
}

/** A started fake server, a started manager connected to it, and a registry its tools are attached to. */
async function attached(options: Partial<McpManagerOptions> = {}): Promise<{ http: FakeMcpHttpServer; mcp: McpManager; registry: ToolRegistry }> {
  const http = await server();
  const mcp = manager(http.url, options);
  await mcp.start();
  const registry = new ToolRegistry();
  mcp.attach(registry);
  return { http, mcp, registry };
}

async function call(registry: ToolRegistry, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  const tool = registry.get(name);
  if (!tool) throw new Error(`no tool ${name}; registered: ${registry.names().join(", ")}`);
  return await tool.handler(args, { signal: new AbortController().signal, toolCallId: "t1", sessionId: "s1", logger });
}

describe("McpManager over HTTP", () => {
  it("lists and calls a Streamable HTTP server's tools, sending the configured headers and logging none", async () => {
    const http = await server();
    const mcp = manager(http.url);
    await mcp.start();
    expect(mcp.status()[0]).toMatchObject({ name: "web", transport: "http", state: "connected", tools: expect.arrayContaining(["mcp_web_echo"]) });
    const registry = new ToolRegistry();
    mcp.attach(registry);
    expect(await call(registry, "mcp_web_echo", { text: "over http" })).toMatchObject({ content: "echo: over http" });
    expect(http.seenHeaders.get("authorization")).toEqual(new Set([SECRET]));
    expect(JSON.stringify(logger.entries)).not.toContain("hdr-s3cret");
  });

  it("answers an agent's calls of an HTTP server's tools in its run", async () => {
    const { registry } = await attached();
    const fx = await fauxAgentFixture();
    cleanups.push(() => fx.cleanup());
    const agent = await fx.make({ tools: registry });
    fx.faux.setResponses([fauxAssistantMessage([fauxToolCall("mcp_web_add", { a: 2, b: 3 })], { stopReason: "toolUse" }), fauxAssistantMessage("five")]);
    const result = await agent.run("add");
    const answer = result.newMessages.find((message): message is ToolResultMessage => message.role === "toolResult");
    expect(answer).toMatchObject({ isError: false, content: [{ type: "text", text: "5" }] });
  });

  it("follows list_changed over Streamable HTTP", async () => {
    const { registry } = await attached();
    await call(registry, "mcp_web_add_tool", { name: "extra" });
    await waitUntil(() => registry.has("mcp_web_extra"), "the added tool in the registry");
    expect(await call(registry, "mcp_web_extra")).toMatchObject({ content: "I am extra" });
  });

  it("starts a new session when a restarted server has forgotten the old one (404)", async () => {
    const { http, mcp, registry } = await attached();
    expect(await call(registry, "mcp_web_echo", { text: "one" })).toMatchObject({ content: "echo: one" });
    http.forgetSessions();
    expect(await call(registry, "mcp_web_echo", { text: "two" })).toMatchObject({ isError: true, content: expect.stringContaining("HTTP 404") });
    await waitUntil(() => mcp.status()[0]?.state === "connected", "a new session");
    expect(await call(registry, "mcp_web_echo", { text: "three" })).toMatchObject({ content: "echo: three" });
  });

  it("reconnects a session that held for a while after the first backoff step again, not a longer one", async () => {
    let now = 1_000_000;
    const { http, mcp, registry } = await attached({ now: () => now });
    for (let restart = 0; restart < 2; restart += 1) {
      http.forgetSessions();
      await call(registry, "mcp_web_echo", { text: "x" });
      // initialMs 20: the session had lasted longer than the longest delay (200 ms) each time.
      expect({ restart, ...mcp.status()[0] }).toMatchObject({ restart, state: "retrying", retryAt: now + 20 });
      await waitUntil(() => mcp.status()[0]?.state === "connected", "a new session");
      now += 1_000;
    }
  });

  it("fails an answer larger than 10 MB instead of reading it into memory, and the server goes on answering", async () => {
    const http = await server();
    // An answer streamed as SSE cannot fail its request: it times out, so the timeout is short.
    const mcp = manager(http.url, { servers: [{ name: "web", url: http.url, headers: { Authorization: SECRET }, timeoutMs: 3_000 }] });
    await mcp.start();
    const registry = new ToolRegistry();
    mcp.attach(registry);
    const huge = await call(registry, "mcp_web_echo", { text: "x".repeat(1_000), times: 11_000 });
    expect(huge).toMatchObject({ isError: true, content: expect.stringMatching(/^MCP server "web" failed on echo: /) });
    expect(await call(registry, "mcp_web_echo", { text: "small" })).toMatchObject({ content: "echo: small" });
  });

  it("falls back to HTTP+SSE when the server answers the Streamable HTTP initialize with a 4xx", async () => {
    const http = await server({ mode: "sse" });
    const mcp = manager(http.url);
    await mcp.start();
    expect(mcp.status()[0]).toMatchObject({ transport: "sse", state: "connected" });
    const registry = new ToolRegistry();
    mcp.attach(registry);
    expect(await call(registry, "mcp_web_echo", { text: "over sse" })).toMatchObject({ content: "echo: over sse" });
  });

  it("reports a server that refuses the credentials as retrying with both transports' errors", async () => {
    const http = await server();
    const mcp = new McpManager({ servers: [{ name: "web", url: http.url, headers: { Authorization: "Bearer wrong" } }], logger, restartBackoff: { initialMs: 60_000 } });
    cleanups.push(() => mcp.close());
    await mcp.start();
    const status = mcp.status()[0];
    expect(status?.state).toBe("retrying");
    expect(status?.error).toMatch(/^Streamable HTTP: .*401.*; SSE: .*401/);
  });

  it("reports a server that cannot be reached as retrying with the reason", async () => {
    const gone = await startFakeMcpHttpServer();
    await gone.close();
    const mcp = manager(gone.url, { restartBackoff: { initialMs: 60_000 } });
    await mcp.start();
    expect(mcp.status()[0]).toMatchObject({ state: "retrying", error: expect.stringContaining("ECONNREFUSED") });
  });

  it("never throws from start(), even for a URL it cannot parse", async () => {
    const mcp = manager("not a url", { restartBackoff: { initialMs: 60_000 } });
    await mcp.start();
    expect(mcp.status()[0]).toMatchObject({ state: "retrying", error: expect.stringContaining("Invalid URL") });
  });

  it("opens the circuit after 3 failed calls, answers at once, and lets a probe through after 60 s", async () => {
    let now = 1_000_000;
    const { http, mcp, registry } = await attached({ now: () => now });

    http.failToolCalls = true;
    for (let i = 0; i < 3; i += 1) {
      const failed = await call(registry, "mcp_web_echo", { text: "x" });
      expect(failed.isError).toBe(true);
      expect(failed.content).toContain('MCP server "web" failed on echo');
    }
    expect(http.toolCalls).toBe(3);
    expect(mcp.status()[0]).toMatchObject({ state: "open_circuit", retryAt: now + 60_000, error: expect.stringContaining("500") });

    const refused = await call(registry, "mcp_web_echo", { text: "x" });
    expect(refused).toMatchObject({ isError: true, content: expect.stringMatching(/^MCP server "web" is unavailable \(circuit open/) });
    expect(http.toolCalls).toBe(3);

    http.failToolCalls = false;
    now += 59_999;
    expect((await call(registry, "mcp_web_echo", { text: "x" })).content).toMatch(/is unavailable/);
    now += 1;
    expect(await call(registry, "mcp_web_echo", { text: "probe" })).toMatchObject({ content: "echo: probe" });
    expect(mcp.status()[0]?.state).toBe("connected");
    expect(http.toolCalls).toBe(4);
  });
});
