import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeMcpHttpServer } from "./fakes/mcp/http-server.js";
import { REPO_ROOT, runCli } from "./support/run-cli.js";

// `hermes mcp` and doctor's MCP checks against the stdio test server, through the compiled CLI.
const STDIO_SERVER = path.join(REPO_ROOT, "test/fakes/mcp/stdio-server.mjs");
const SECRET = "mcp-env-secret-4711";
const FAKE_TOOLS = ["add", "add_tool", "calls", "crash", "echo", "env_value", "fail", "red_dot", "remove_tool", "sleep", "whoami"];

let root = "";

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-cli-mcp-"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A home whose config.yaml holds the given `mcp_servers` lines; returns the CLI's environment. */
async function homeWith(name: string, serverLines: string[]): Promise<Record<string, string>> {
  const home = path.join(root, name);
  await mkdir(home, { recursive: true });
  await writeFile(path.join(home, "config.yaml"), ["mcp_servers:", ...serverLines.map((line) => `  ${line}`)].join("\n"));
  return { HOME: root, HERMES_HOME: home };
}

const node = JSON.stringify(process.execPath);
const server = JSON.stringify(STDIO_SERVER);
const SERVERS = [
  `fake: { command: ${node}, args: [${server}, --name, fake], env: { FAKE_TOKEN: ${SECRET} } }`,
  `broken: { command: ${node}, args: [${server}, --exit-at-start], timeout_s: 10 }`,
  `off: { command: ${node}, args: [${server}], enabled: false }`,
];

interface ListedServer {
  name: string;
  transport: string;
  enabled: boolean;
  state: string;
  tools: string[];
  error?: string;
}

describe("hermes mcp list", () => {
  it("--json shows each server's state and tools, and exits 1 when one failed", async () => {
    const env = await homeWith("list", SERVERS);
    const run = await runCli(["mcp", "list", "--json"], { env, timeoutMs: 30_000 });
    expect(run.stderr).toBe("");
    const servers = (JSON.parse(run.stdout) as { servers: ListedServer[] }).servers;
    expect(servers.map(({ name, transport, enabled, state }) => ({ name, transport, enabled, state }))).toEqual([
      { name: "fake", transport: "stdio", enabled: true, state: "connected" },
      { name: "broken", transport: "stdio", enabled: true, state: "failed" },
      { name: "off", transport: "stdio", enabled: false, state: "disabled" },
    ]);
    expect([...(servers[0]?.tools ?? [])].sort()).toEqual(FAKE_TOOLS.map((tool) => `mcp_fake_${tool}`));
    expect(servers[1]?.error).toMatch(/\S/);
    expect(run.code).toBe(1);
  });

  it("prints a table and exits 0 when every enabled server connected", async () => {
    const env = await homeWith("list-ok", [SERVERS[0] ?? "", SERVERS[2] ?? ""]);
    const run = await runCli(["mcp", "list"], { env, timeoutMs: 30_000 });
    expect(run.stdout).toMatch(/^fake\s+stdio\s+connected\s+11 tools: .*mcp_fake_echo/m);
    expect(run.stdout).toMatch(/^off\s+stdio\s+disabled\s+enabled: false$/m);
    expect(run.code).toBe(0);
  });

  it("reaches an HTTP server with the configured headers, and names the refusal of a wrong one without showing it", async () => {
    const web = await startFakeMcpHttpServer({ requiredHeaders: { authorization: "Bearer right-token-1234" } });
    try {
      const url = JSON.stringify(web.url);
      const env = await homeWith("list-http", [`web: { url: ${url}, headers: { Authorization: Bearer right-token-1234 } }`, `wrong: { url: ${url}, headers: { Authorization: Bearer wrong-token-5678 } }`]);
      const run = await runCli(["mcp", "list", "--json"], { env, timeoutMs: 30_000 });
      const [right, wrong] = (JSON.parse(run.stdout) as { servers: ListedServer[] }).servers;
      expect(right).toMatchObject({ name: "web", transport: "http", state: "connected", tools: expect.arrayContaining(["mcp_web_echo"]) as unknown as string[] });
      expect(wrong).toMatchObject({ name: "wrong", transport: "http", state: "failed" });
      expect(wrong?.error).toMatch(/401/);
      expect(run.stdout + run.stderr).not.toContain("wrong-token-5678");
      expect(run.code).toBe(1);
    } finally {
      await web.close();
    }
  });

  it("says so when no server is configured", async () => {
    const home = path.join(root, "none");
    await mkdir(home, { recursive: true });
    const run = await runCli(["mcp", "list", "--json"], { env: { HOME: root, HERMES_HOME: home } });
    expect(JSON.parse(run.stdout)).toEqual({ servers: [] });
    expect(run.code).toBe(0);
  });

  it("exits 2 naming the field of an invalid entry", async () => {
    const env = await homeWith("invalid", [`bad: { command: ${node}, timeout_s: never }`]);
    const run = await runCli(["mcp", "list"], { env });
    expect(run.stderr).toContain("mcp_servers.bad.timeout_s");
    expect(run.code).toBe(2);
  });
});

describe("hermes mcp test", () => {
  it("connects, lists the tools and exits 0", async () => {
    const env = await homeWith("test-ok", SERVERS);
    const run = await runCli(["mcp", "test", "fake"], { env, timeoutMs: 30_000 });
    expect(run.stdout).toMatch(/^fake: connected, 11 tools\n/);
    expect(run.stdout).toContain("  mcp_fake_env_value\n");
    expect(run.code).toBe(0);
  });

  it("exits 1 with the reason for a server that does not start", async () => {
    const env = await homeWith("test-broken", SERVERS);
    const run = await runCli(["mcp", "test", "broken"], { env, timeoutMs: 30_000 });
    expect(run.stdout).toMatch(/^broken: failed: \S/);
    expect(run.code).toBe(1);
  });

  it("exits 2 for a name that is not configured, and for a missing name", async () => {
    const env = await homeWith("test-unknown", SERVERS);
    const unknown = await runCli(["mcp", "test", "nope"], { env });
    expect(unknown.stderr).toContain('no MCP server named "nope" is configured (configured: fake, broken, off)');
    expect(unknown.code).toBe(2);
    const missing = await runCli(["mcp", "test"], { env });
    expect(missing.code).toBe(2);
  });
});

describe("hermes doctor with MCP servers", () => {
  it("adds a check per server: connected with its tools, a failing one failed by name, a disabled one ok", async () => {
    const env = await homeWith("doctor", SERVERS);
    const run = await runCli(["doctor", "--json"], { env: { ...env, HERMES_HTTP_PORT: "0" }, timeoutMs: 40_000 });
    const report = JSON.parse(run.stdout) as { ok: boolean; checks: Array<{ name: string; status: string; detail: string }> };
    const mcp = report.checks.filter((check) => check.name.startsWith("mcp:"));
    expect(mcp.map(({ name, status }) => ({ name, status }))).toEqual([
      { name: "mcp:fake", status: "ok" },
      { name: "mcp:broken", status: "fail" },
      { name: "mcp:off", status: "ok" },
    ]);
    expect(mcp[0]?.detail).toMatch(/^connected \(stdio: .*\), 11 tools \(.*mcp_fake_echo/);
    expect(mcp[2]?.detail).toBe("disabled (enabled: false in config.yaml)");
    expect(run.stdout).not.toContain(SECRET);
    expect(run.code).toBe(1);
  });

  it("names an HTTP server by its address without the URL's query, which may carry a key", async () => {
    const web = await startFakeMcpHttpServer();
    try {
      const env = await homeWith("doctor-http", [`web: { url: ${JSON.stringify(`${web.url}?api_key=query-key-9921`)} }`]);
      const run = await runCli(["doctor", "--json"], { env: { ...env, HERMES_HTTP_PORT: "0" }, timeoutMs: 40_000 });
      const report = JSON.parse(run.stdout) as { checks: Array<{ name: string; status: string; detail: string }> };
      const check = report.checks.find((entry) => entry.name === "mcp:web");
      expect(check).toMatchObject({ status: "ok", detail: expect.stringContaining(`connected (${new URL(web.url).origin}`) as unknown as string });
      expect(run.stdout).not.toContain("query-key-9921");
    } finally {
      await web.close();
    }
  });
});
