import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createGatewayLogger } from "../logging/create-logger.js";
import { parseConfigYaml } from "./config-yaml.js";
import { loadConfig } from "./load-config.js";
import { configSecrets } from "./secrets.js";

const FILE = "/srv/hermes/config.yaml";

function parse(yaml: string) {
  return parseConfigYaml(yaml, FILE);
}

function issueSettings(yaml: string): string[] {
  return parse(yaml).issues.map((issue) => issue.setting);
}

describe("config.yaml mcp_servers", () => {
  it("reads a stdio and an HTTP server with their defaults, beside ordinary settings", () => {
    const parsed = parse(
      [
        "HERMES_MODEL: anthropic/claude-sonnet-4-5",
        "mcp_servers:",
        "  files:",
        "    command: npx",
        "    args: [-y, '@modelcontextprotocol/server-filesystem', 7]",
        "    env: { FILES_TOKEN: tok-123456 }",
        "    cwd: tools",
        "  search-web:",
        "    url: https://tools.example.com/mcp",
        "    headers: { Authorization: Bearer web-secret-77 }",
        "    timeout_s: 2.5",
        "    enabled: false",
      ].join("\n"),
    );
    expect(parsed.issues).toEqual([]);
    expect(parsed.warnings).toEqual([]);
    expect(parsed.values.get("HERMES_MODEL")?.text).toBe("anthropic/claude-sonnet-4-5");
    expect(parsed.mcpServers).toEqual([
      {
        name: "files",
        transport: { kind: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "7"], env: { FILES_TOKEN: "tok-123456" }, cwd: "/srv/hermes/tools" },
        timeoutS: 60,
        enabled: true,
      },
      { name: "search-web", transport: { kind: "http", url: "https://tools.example.com/mcp", headers: { Authorization: "Bearer web-secret-77" } }, timeoutS: 2.5, enabled: false },
    ]);
  });

  it("has no servers for an empty key, and no mcpServers field without the key", () => {
    expect(parse("mcp_servers:\n").mcpServers).toEqual([]);
    expect(parse("HERMES_MODEL: m\n")).not.toHaveProperty("mcpServers");
  });

  it("names every invalid field as mcp_servers.<name>.<field>", () => {
    const yaml = [
      "mcp_servers:",
      "  both: { command: x, url: 'https://a.test/mcp' }",
      "  neither: { timeout_s: 5 }",
      "  'bad name': { command: x }",
      `  ${"n".repeat(33)}: { command: x }`,
      "  args: { command: x, args: run }",
      "  timeout: { command: x, timeout_s: 0 }",
      "  slow: { command: x, timeout_s: soon }",
      "  switch: { command: x, enabled: maybe }",
      "  env: { command: x, env: { 'NOT-A-NAME': v, OK: [1] } }",
      "  url: { url: 'ftp://a.test/x' }",
      "  mixed: { url: 'https://a.test/mcp', args: [a] }",
      "  typo: { comand: x }",
      "  empty: { command: '' }",
      "  scalar: just-a-string",
    ].join("\n");
    expect(issueSettings(yaml)).toEqual([
      "mcp_servers.both.url",
      "mcp_servers.neither",
      "mcp_servers.bad name",
      `mcp_servers.${"n".repeat(33)}`,
      "mcp_servers.args.args",
      "mcp_servers.timeout.timeout_s",
      "mcp_servers.slow.timeout_s",
      "mcp_servers.switch.enabled",
      "mcp_servers.env.env.NOT-A-NAME",
      "mcp_servers.env.env.OK",
      "mcp_servers.url.url",
      "mcp_servers.mixed.args",
      "mcp_servers.typo.comand",
      "mcp_servers.typo",
      "mcp_servers.empty.command",
      "mcp_servers.scalar",
    ]);
    expect(parse(yaml).mcpServers).toEqual([]);
  });

  it("says where the problem is and never quotes an env or header value", () => {
    const parsed = parse("mcp_servers:\n  s:\n    command: x\n    env:\n      TOKEN: [super-secret-value]\n");
    expect(parsed.issues).toEqual([{ setting: "mcp_servers.s.env.TOKEN", message: `must be a string, number or boolean (${FILE} line 5)` }]);
  });

  it("refuses a header value with a line break and an env value with a NUL, without quoting either", () => {
    const parsed = parse('mcp_servers:\n  s: { url: "https://a.test/mcp", headers: { X-Key: "line-secret\\r\\nX-Evil: 1" } }\n  t: { command: x, env: { K: "nul-secret\\0" } }\n');
    expect(parsed.issues.map((issue) => issue.setting)).toEqual(["mcp_servers.s.headers.X-Key", "mcp_servers.t.env.K"]);
    expect(parsed.issues[0]?.message).toMatch(/^must not hold control characters/);
    expect(JSON.stringify(parsed.issues)).not.toMatch(/line-secret|nul-secret/);
  });

  it("refuses a value that is not a mapping", () => {
    expect(parse("mcp_servers: [a, b]\n").issues).toEqual([
      { setting: "mcp_servers", message: expect.stringContaining("must be a mapping of server names to settings") as unknown as string },
    ]);
  });
});

describe("mcp_servers through loadConfig", () => {
  it("puts the servers in the configuration, masks their env values and headers, and refuses bad ones", async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), "hermes-mcp-config-"));
    try {
      const options = { env: { HERMES_HOME: home, HERMES_MODEL: "m" }, cwd: home, homeDir: home, knownTools: ["think"], defaultTools: ["think"] };
      const yaml = ["mcp_servers:", "  local: { command: node, env: { LOCAL_KEY: local-secret-1 } }", "  remote: { url: 'https://u:url-pass-9@x.test/mcp', headers: { Authorization: Bearer hdr-secret-2 } }"];
      await writeFile(path.join(home, "config.yaml"), yaml.join("\n"));
      const loaded = await loadConfig(options);
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
      expect(loaded.config.mcpServers?.map((server) => server.name)).toEqual(["local", "remote"]);
      const secrets = configSecrets(loaded.config);
      expect(secrets).toEqual(expect.arrayContaining(["local-secret-1", "Bearer hdr-secret-2", "hdr-secret-2", "url-pass-9"]));

      const chunks: string[] = [];
      const stderr = { write: (text: string) => void chunks.push(text), isTTY: false };
      const logger = await createGatewayLogger({ level: "info", name: "gateway", secrets, stderr, pretty: false });
      logger.warn("mcp server failed", { error: new Error("auth failed for hdr-secret-2 with local-secret-1") });
      expect(chunks.join("")).toContain("auth failed for [REDACTED] with [REDACTED]");

      await writeFile(path.join(home, "config.yaml"), "mcp_servers:\n  broken: { command: node, timeout_s: -1 }\n");
      const refused = await loadConfig(options);
      expect(refused.ok).toBe(false);
      if (!refused.ok) expect(refused.errors.map((issue) => issue.setting)).toEqual(["mcp_servers.broken.timeout_s"]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
