import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall, type ToolResultMessage } from "@mariozechner/pi-ai";
import { recordingLogger, type RecordingLogger } from "../../../../test/support/recording-logger.js";
import { waitUntil } from "../../../../test/support/wait-until.js";
import { RED_DOT_PNG } from "../../../../test/fakes/mcp/fake-tools.mjs";
import { fauxAgentFixture, type FauxAgentFixture } from "../testing/faux.js";
import { ToolRegistry } from "../tools/registry.js";
import type { ToolResult } from "../tools/types.js";
import { McpManager, type McpManagerOptions } from "./index.js";
import type { McpStdioServerConfig } from "./types.js";

const STDIO_SERVER = fileURLToPath(new URL("../../../../test/fakes/mcp/stdio-server.mjs", import.meta.url));

let fx: FauxAgentFixture;
let logger: RecordingLogger;
const managers: McpManager[] = [];

beforeEach(async () => {
  fx = await fauxAgentFixture();
  logger = recordingLogger();
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
  await fx.cleanup();
});

function stdioServer(overrides: Partial<McpStdioServerConfig> = {}): McpStdioServerConfig {
  return { name: "fake", command: process.execPath, args: [STDIO_SERVER], ...overrides };
}

function manager(options: Partial<McpManagerOptions> = {}): McpManager {
  const made = new McpManager({ servers: [stdioServer()], logger, restartBackoff: { initialMs: 20, maxMs: 200 }, ...options });
  managers.push(made);
  return made;
}

async function call(registry: ToolRegistry, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  const tool = registry.get(name);
  if (!tool) throw new Error(`no tool ${name}; registered: ${registry.names().join(", ")}`);
  return await tool.handler(args, { signal: new AbortController().signal, toolCallId: "t1", sessionId: "s1", logger });
}

async function availableNames(registry: ToolRegistry): Promise<string[]> {
  return (await registry.available()).map((t) => t.name);
}

function resultText(message: ToolResultMessage): string {
  return message.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

describe("McpManager over stdio", () => {
  it("lists a stdio server's tools as mcp_<server>_<tool> and the agent calls them end to end", async () => {
    const mcp = manager({ servers: [stdioServer({ name: "my-files", env: { FAKE_TOKEN: "s3cret-token-value" } })] });
    await mcp.start();
    const [status] = mcp.status();
    expect(status).toMatchObject({ name: "my-files", transport: "stdio", state: "connected" });
    expect(status?.tools).toEqual(expect.arrayContaining(["mcp_my_files_echo", "mcp_my_files_add", "mcp_my_files_red_dot"]));

    const registry = new ToolRegistry();
    const detach = mcp.attach(registry);
    const agent = await fx.make({ tools: registry });
    fx.faux.setResponses([
      // "2" as a string: the server's JSON Schema says number, and the registry's validation coerces it.
      fauxAssistantMessage([fauxToolCall("mcp_my_files_add", { a: 40, b: "2" }), fauxToolCall("mcp_my_files_env_value", { name: "FAKE_TOKEN" })], { stopReason: "toolUse" }),
      fauxAssistantMessage("done"),
    ]);
    const result = await agent.run("add");
    const results = result.newMessages.filter((m): m is ToolResultMessage => m.role === "toolResult");
    expect(results.map(resultText)).toEqual(["42", "s3cret-token-value"]);
    expect(results.every((m) => !m.isError)).toBe(true);

    detach();
    expect(registry.names()).toEqual([]);
    // The env value reached the server but never a log line.
    expect(JSON.stringify(logger.entries)).not.toContain("s3cret-token-value");
  });

  it("starts a stdio server without the gateway's own environment, whose secrets it has no business seeing", async () => {
    process.env.HERMES_TEST_GATEWAY_SECRET = "gateway-only-secret-77";
    try {
      const mcp = manager({ servers: [stdioServer({ env: { GIVEN: "given-value" } })] });
      await mcp.start();
      const registry = new ToolRegistry();
      mcp.attach(registry);
      const value = async (name: string): Promise<string> => (await call(registry, "mcp_fake_env_value", { name })).content;
      expect(await value("HERMES_TEST_GATEWAY_SECRET")).toBe("(unset)");
      expect(await value("GIVEN")).toBe("given-value");
      expect(await value("PATH")).toBe(process.env.PATH);
    } finally {
      delete process.env.HERMES_TEST_GATEWAY_SECRET;
    }
  });

  it("keeps image content as image parts of the tool result the model gets", async () => {
    const mcp = manager();
    await mcp.start();
    const registry = new ToolRegistry();
    mcp.attach(registry);
    const agent = await fx.make({ tools: registry });
    fx.faux.setResponses([fauxAssistantMessage([fauxToolCall("mcp_fake_red_dot", {})], { stopReason: "toolUse" }), fauxAssistantMessage("a dot")]);
    const result = await agent.run("draw");
    const message = result.newMessages.find((m): m is ToolResultMessage => m.role === "toolResult");
    expect(message?.content).toEqual([
      { type: "text", text: "a red dot" },
      { type: "image", data: RED_DOT_PNG, mimeType: "image/png" },
    ]);
  });

  it("passes long results through the tool-result budget (saved to a file, a preview for the model)", async () => {
    const mcp = manager();
    await mcp.start();
    const registry = new ToolRegistry();
    mcp.attach(registry);
    const agent = await fx.make({ tools: registry, resultBudget: { defaultMaxChars: 1_000 } });
    fx.faux.setResponses([fauxAssistantMessage([fauxToolCall("mcp_fake_echo", { text: "abc ".repeat(1_000) })], { stopReason: "toolUse" }), fauxAssistantMessage("ok")]);
    const result = await agent.run("long");
    const message = result.newMessages.find((m): m is ToolResultMessage => m.role === "toolResult");
    const text = message ? resultText(message) : "";
    expect(text).toContain("[Output truncated: 4006 characters in total. The full output of mcp_fake_echo was saved to");
    expect(text.length).toBeLessThan(4_000);
  });

  it("adds and removes a tool in an attached registry on notifications/tools/list_changed", async () => {
    const mcp = manager();
    await mcp.start();
    const registry = new ToolRegistry();
    mcp.attach(registry);
    expect(registry.has("mcp_fake_late_tool")).toBe(false);

    expect((await call(registry, "mcp_fake_add_tool", { name: "late.tool" })).content).toBe("added late.tool");
    await waitUntil(() => registry.has("mcp_fake_late_tool"), "the added tool in the registry");
    expect(await call(registry, "mcp_fake_late_tool")).toMatchObject({ content: "I am late.tool" });
    expect(mcp.status()[0]?.tools).toContain("mcp_fake_late_tool");

    await call(registry, "mcp_fake_remove_tool", { name: "late.tool" });
    await waitUntil(() => !registry.has("mcp_fake_late_tool"), "the removed tool gone from the registry");
    expect(registry.has("mcp_fake_echo")).toBe(true);
  });

  it("does not miss a list_changed the server sends while the first list is on its way", async () => {
    const mcp = manager({ servers: [stdioServer({ args: [STDIO_SERVER, "--change-during-list"] })] });
    await mcp.start();
    const registry = new ToolRegistry();
    mcp.attach(registry);
    await waitUntil(() => registry.has("mcp_fake_late"), "the tool added during the first listing");
    expect(await call(registry, "mcp_fake_late")).toMatchObject({ content: "late" });
  });

  it("restarts a crashed stdio server with backoff and its tools come back", async () => {
    const mcp = manager();
    await mcp.start();
    const registry = new ToolRegistry();
    mcp.attach(registry);
    const firstPid = (await call(registry, "mcp_fake_whoami")).content;

    const crash = await call(registry, "mcp_fake_crash");
    expect(crash.isError).toBe(true);
    expect(crash.content).toContain('MCP server "fake" failed on crash');
    await waitUntil(() => mcp.status()[0]?.state === "connected" && registry.has("mcp_fake_whoami"), "the restarted server");
    expect(logger.entries.some((e) => e.message === "MCP server unavailable; retrying" && e.fields.mcpServer === "fake")).toBe(true);

    expect(await availableNames(registry)).toContain("mcp_fake_whoami");
    const secondPid = (await call(registry, "mcp_fake_whoami")).content;
    expect(secondPid).toMatch(/^\d+$/);
    expect(secondPid).not.toBe(firstPid);
  });

  it("leaves no server process behind once closed", async () => {
    const mcp = manager();
    await mcp.start();
    const registry = new ToolRegistry();
    mcp.attach(registry);
    const pid = Number((await call(registry, "mcp_fake_whoami")).content);
    expect(() => process.kill(pid, 0)).not.toThrow();
    await mcp.close();
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
  });

  it("hides a lost server's tools from the model until it is back", async () => {
    const mcp = manager({ restartBackoff: { initialMs: 60_000, maxMs: 60_000 } });
    await mcp.start();
    const registry = new ToolRegistry();
    mcp.attach(registry);
    await call(registry, "mcp_fake_crash");
    await waitUntil(() => mcp.status()[0]?.state === "retrying", "the lost connection noticed");
    expect(await availableNames(registry)).toEqual([]);
    const status = mcp.status()[0];
    expect(status?.error).toContain("connection closed");
    expect(status?.retryAt).toBeGreaterThan(Date.now());
    expect((await call(registry, "mcp_fake_echo", { text: "x" })).content).toMatch(/^MCP server "fake" is unavailable \(connection closed/);
  });

  it("leaves a server that cannot start retrying with its error, and start() resolves", async () => {
    const mcp = manager({
      servers: [
        stdioServer({ name: "missing", command: "/nonexistent/mcp-server-binary" }),
        stdioServer({ name: "refuses", args: [STDIO_SERVER, "--exit-at-start"], env: { FAKE_TOKEN: "tok-s3cret-123" } }),
        stdioServer({ name: "good" }),
        stdioServer({ name: "off", enabled: false }),
      ],
      restartBackoff: { initialMs: 60_000 },
    });
    await mcp.start();
    const byName = new Map(mcp.status().map((s) => [s.name, s]));
    expect(byName.get("missing")).toMatchObject({ state: "retrying", error: expect.stringContaining("ENOENT") });
    expect(byName.get("missing")?.retryAt).toBeGreaterThan(Date.now());
    // The server printed its token on stderr; the error says why it failed without it.
    expect(byName.get("refuses")).toMatchObject({ state: "retrying", error: expect.stringContaining("refusing to start (token: ***)") });
    expect(JSON.stringify([mcp.status(), logger.entries])).not.toContain("tok-s3cret-123");
    expect(byName.get("good")?.state).toBe("connected");
    expect(byName.get("off")).toMatchObject({ state: "disabled", tools: [] });

    const registry = new ToolRegistry();
    mcp.attach(registry);
    expect((await availableNames(registry)).every((name) => name.startsWith("mcp_good_"))).toBe(true);
  });

  it("test() connects once, lists the tools and closes; an unknown or broken server is an error value", async () => {
    const mcp = manager({ servers: [stdioServer({ enabled: false }), stdioServer({ name: "broken", command: "/nonexistent/x" })] });
    const ok = await mcp.test("fake");
    expect(ok.ok && ok.tools).toEqual(expect.arrayContaining(["mcp_fake_echo"]));
    expect(mcp.status()[0]?.state).toBe("disabled");
    expect(await mcp.test("nope")).toEqual({ ok: false, error: 'no MCP server named "nope" is configured' });
    const broken = await mcp.test("broken");
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.error).toContain("ENOENT");
  });
});
