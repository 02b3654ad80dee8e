import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { recordingLogger } from "../../../../test/support/recording-logger.js";
import { ToolRegistry } from "../tools/registry.js";
import type { ToolResult } from "../tools/types.js";
import { McpManager } from "./index.js";

const STDIO_SERVER = fileURLToPath(new URL("../../../../test/fakes/mcp/stdio-server.mjs", import.meta.url));
const logger = recordingLogger();
const managers: McpManager[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

async function call(registry: ToolRegistry, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  const tool = registry.get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  return await tool.handler(args, { signal: new AbortController().signal, toolCallId: "t1", sessionId: "s1", logger });
}

describe("the circuit breaker of an MCP server", () => {
  it("opens after 3 timeouts, then lets exactly one probe through after 60 s", async () => {
    let now = 5_000_000;
    const mcp = new McpManager({
      servers: [{ name: "slow", command: process.execPath, args: [STDIO_SERVER], timeoutMs: 200 }],
      logger,
      now: () => now,
    });
    managers.push(mcp);
    await mcp.start();
    const registry = new ToolRegistry();
    mcp.attach(registry);

    for (let i = 0; i < 3; i += 1) {
      expect(await call(registry, "mcp_slow_sleep", { ms: 1_000 })).toMatchObject({ isError: true, content: 'MCP server "slow" failed on sleep: timed out after 200 ms' });
    }
    expect(mcp.status()[0]).toMatchObject({ state: "open_circuit", retryAt: now + 60_000 });
    const refused = await call(registry, "mcp_slow_echo", { text: "x" });
    expect(refused.content).toMatch(/^MCP server "slow" is unavailable \(circuit open after repeated failures: timed out after 200 ms; next try at /);

    // The probe: while it is out, every other call is still answered at once; its failure re-opens the circuit.
    now += 60_000;
    const probe = call(registry, "mcp_slow_sleep", { ms: 1_000 });
    expect((await call(registry, "mcp_slow_echo", { text: "x" })).content).toMatch(/is unavailable \(circuit open/);
    expect(mcp.status()[0]?.retryAt).toBeUndefined();
    expect((await probe).content).toContain("timed out");
    expect(mcp.status()[0]).toMatchObject({ state: "open_circuit", retryAt: now + 60_000 });

    // A successful probe closes it; the refused echo calls never reached the server (only the sleeps counted).
    now += 60_000;
    expect(await call(registry, "mcp_slow_calls")).toMatchObject({ content: "4" });
    expect(mcp.status()[0]?.state).toBe("connected");
    expect(await call(registry, "mcp_slow_echo", { text: "back" })).toMatchObject({ content: "echo: back" });
  });

  it("does not count calls stopped by the run (/stop) as server failures", async () => {
    const mcp = new McpManager({ servers: [{ name: "fine", command: process.execPath, args: [STDIO_SERVER] }], logger });
    managers.push(mcp);
    await mcp.start();
    const registry = new ToolRegistry();
    mcp.attach(registry);
    const tool = registry.get("mcp_fine_sleep");
    for (let i = 0; i < 3; i += 1) {
      const stop = new AbortController();
      const pending = tool?.handler({ ms: 1_000 }, { signal: stop.signal, toolCallId: `t${i}`, sessionId: "s1", logger });
      stop.abort(new Error("stopped"));
      expect(await pending).toMatchObject({ isError: true, content: expect.stringContaining("Cancelled") });
    }
    expect(mcp.status()[0]?.state).toBe("connected");
    expect(await call(registry, "mcp_fine_echo", { text: "still here" })).toMatchObject({ content: "echo: still here" });
  });

  it("does not count a tool's own error answers as server failures", async () => {
    const mcp = new McpManager({ servers: [{ name: "fine", command: process.execPath, args: [STDIO_SERVER] }], logger });
    managers.push(mcp);
    await mcp.start();
    const registry = new ToolRegistry();
    mcp.attach(registry);
    for (let i = 0; i < 4; i += 1) expect(await call(registry, "mcp_fine_fail")).toMatchObject({ isError: true, content: "this tool always fails" });
    expect(mcp.status()[0]?.state).toBe("connected");
  });
});
