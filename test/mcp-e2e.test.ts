import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeMcpHttpServer, type FakeMcpHttpServer } from "./fakes/mcp/http-server.js";
import { startApp, type AppProcess } from "./support/app-process.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";
import { startRedis, type TestRedis } from "./support/redis-server.js";
import { REPO_ROOT } from "./support/run-cli.js";

// The gateway with config.yaml's mcp_servers: a working stdio server whose tools the model calls, and one that never starts.
const STDIO_SERVER = path.join(REPO_ROOT, "test/fakes/mcp/stdio-server.mjs");
const DM_KEY = "agent:main:telegram:dm:100";
const SECRET = "mcp-e2e-secret-0815";

interface ReadyBody {
  status: string;
  mcpServers?: Array<{ name: string; transport: string; state: string; tools: string[]; error?: string }>;
}

let h: GatewayHarness | undefined;
let home = "";
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await rm(home, { recursive: true, force: true });
});

async function readyz(): Promise<{ status: number; body: ReadyBody }> {
  const address = h?.gateway.httpAddress;
  if (!address) throw new Error("the gateway serves no HTTP");
  const response = await fetch(`http://127.0.0.1:${address.port}/readyz`);
  return { status: response.status, body: (await response.json()) as ReadyBody };
}

async function until<T>(read: () => Promise<T>, accept: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not seen in time; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("MCP tool servers in the gateway", () => {
  it("offers a server's tools, puts a call's result in the model's next request, and keeps answering with a server that fails", async () => {
    home = await mkdtemp(path.join(os.tmpdir(), "hermes-mcp-e2e-"));
    const node = JSON.stringify(process.execPath);
    const server = JSON.stringify(STDIO_SERVER);
    await writeFile(
      path.join(home, "config.yaml"),
      [
        "mcp_servers:",
        `  fake: { command: ${node}, args: [${server}, --name, fake], env: { FAKE_TOKEN: ${SECRET} } }`,
        `  broken: { command: ${node}, args: [${server}, --exit-at-start] }`,
      ].join("\n"),
    );
    h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", HERMES_REFLECTION: "off", HERMES_HTTP_PORT: "0" }, home, { http: true });

    // Start-up did not wait for the servers; the broken one is a detail of a ready gateway.
    const ready = await until(
      readyz,
      // 200 while "broken" is down (other checks may need a moment under load; the MCP detail never holds them back).
      ({ status, body }) =>
        status === 200 && body.mcpServers?.find((entry) => entry.name === "fake")?.state === "connected" && body.mcpServers.find((entry) => entry.name === "broken")?.error !== undefined,
      "a ready gateway with fake connected and broken failed",
    );
    expect(ready.body.status).toBe("ready");
    const broken = ready.body.mcpServers?.find((entry) => entry.name === "broken");
    expect(broken).toMatchObject({ transport: "stdio", tools: [] });
    expect(["retrying", "connecting"]).toContain(broken?.state);
    expect(ready.body.mcpServers?.find((entry) => entry.name === "fake")?.tools).toEqual(expect.arrayContaining(["mcp_fake_echo", "mcp_fake_env_value"]));

    h.llm.enqueue(
      {
        kind: "tools",
        calls: [
          { name: "mcp_fake_echo", arguments: { text: "through MCP" } },
          { name: "mcp_fake_env_value", arguments: { name: "FAKE_TOKEN" } },
        ],
      },
      { kind: "text", text: "The server answered." },
    );
    await h.adapter.userSays("Use the MCP tools, please.");
    await h.gateway.waitIdle(DM_KEY);

    const offered = (h.llm.requests[0]?.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(offered).toEqual(expect.arrayContaining(["mcp_fake_echo", "mcp_fake_add", "memory"]));
    expect(offered.some((name) => name.startsWith("mcp_broken_"))).toBe(false);
    const next = JSON.stringify(h.llm.requests[1]?.messages);
    expect(next).toContain("echo: through MCP");
    // The configured env value reached the server's process.
    expect(next).toContain(SECRET);
    expect(h.adapter.texts().at(-1)).toBe("The server answered.");
  });
});

describe("MCP tool servers in a worker", () => {
  it("connects the worker to an HTTP server with the configured header and lists it in the worker's /readyz", async () => {
    home = await mkdtemp(path.join(os.tmpdir(), "hermes-mcp-worker-"));
    const token = "Bearer worker-header-secret-31";
    const web: FakeMcpHttpServer = await startFakeMcpHttpServer({ requiredHeaders: { authorization: token } });
    cleanups.push(() => web.close());
    const redis: TestRedis = await startRedis();
    cleanups.push(() => redis.stop());
    const state = path.join(home, "state");
    await mkdir(state, { recursive: true });
    await writeFile(path.join(state, "config.yaml"), ["mcp_servers:", `  web: { url: ${JSON.stringify(web.url)}, headers: { Authorization: ${JSON.stringify(token)} } }`].join("\n"));
    const worker: AppProcess = startApp("worker", {
      HOME: home,
      HERMES_HOME: state,
      HERMES_BASE_URL: "http://127.0.0.1:9/v1",
      HERMES_MODEL: "scripted-model",
      HERMES_API_KEY: "test-key",
      REDIS_URL: redis.url,
      HERMES_WORKER_HTTP_PORT: "0",
    });
    cleanups.push(async () => {
      worker.kill("SIGKILL");
      await worker.exited;
    });
    await worker.waitFor('"msg":"worker started"');
    const url = /"url":"(http:\/\/[^"]+)"/.exec(worker.stderr())?.[1];
    if (url === undefined) throw new Error(`no worker HTTP address in: ${worker.stderr().slice(-2000)}`);

    const ready = await until(
      async () => {
        const response = await fetch(`${url}/readyz`);
        return { status: response.status, body: (await response.json()) as ReadyBody };
      },
      // Under load the worker's other checks (Redis, store) may need a moment; the MCP detail never holds it back.
      ({ status, body }) => status === 200 && body.mcpServers?.[0]?.state === "connected",
      "the worker ready with its MCP server connected",
    );
    expect(ready.body.mcpServers?.[0]).toMatchObject({ name: "web", transport: "http", state: "connected", tools: expect.arrayContaining(["mcp_web_echo"]) as unknown as string[] });
    expect(web.seenHeaders.get("authorization")).toEqual(new Set([token]));
    // The header is a secret: neither its log nor its stderr shows it.
    const log = await readFile(path.join(state, "logs", "worker.log"), "utf8");
    expect(log + worker.stderr()).not.toContain("worker-header-secret-31");
  });
});
