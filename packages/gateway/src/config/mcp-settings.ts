import path from "node:path";
import { isMap, isScalar, isSeq, type YAMLMap } from "yaml";
import type { ConfigIssue } from "./errors.js";
import type { McpServerSettings, McpServerTransportSettings } from "./gateway-config.js";

/** The config.yaml key; not a setting, since its value is a map of servers rather than one scalar. */
export const MCP_SERVERS_KEY = "mcp_servers";
export const DEFAULT_MCP_TIMEOUT_S = 60;
const MAX_TIMEOUT_S = 3_600;
/** Tool names are cut to 64 characters: a longer server name would leave too little of its tools' names to tell apart. */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;
const STDIO_FIELDS = ["command", "args", "env", "cwd"] as const;
const HTTP_FIELDS = ["url", "headers"] as const;
const COMMON_FIELDS = ["timeout_s", "enabled"] as const;
const ALL_FIELDS: ReadonlySet<string> = new Set([...STDIO_FIELDS, ...HTTP_FIELDS, ...COMMON_FIELDS]);

export interface McpServersSection {
  readonly servers: McpServerSettings[];
  readonly issues: ConfigIssue[];
}

export interface McpYamlContext {
  /** config.yaml's path: messages name it, and a relative `cwd` is taken from its folder. */
  readonly file: string;
  readonly lineOf: (node: unknown) => number;
}

/** Reads `mcp_servers` (a map of name → server); every invalid field is an issue named `mcp_servers.<name>.<field>`. */
export function readMcpServers(node: unknown, context: McpYamlContext): McpServersSection {
  if (node === null || node === undefined || (isScalar(node) && node.value === null)) return { servers: [], issues: [] };
  if (!isMap(node)) {
    const message = `must be a mapping of server names to settings (${context.file} line ${context.lineOf(node)}), like "mcp_servers: {files: {command: npx, args: [...]}}"`;
    return { servers: [], issues: [{ setting: MCP_SERVERS_KEY, message }] };
  }
  const servers: McpServerSettings[] = [];
  const issues: ConfigIssue[] = [];
  const seen = new Set<string>();
  for (const pair of node.items) {
    const name = isScalar(pair.key) ? String(pair.key.value) : "";
    const setting = `${MCP_SERVERS_KEY}.${name}`;
    const where = `${context.file} line ${context.lineOf(pair.key)}`;
    if (!SERVER_NAME.test(name)) {
      issues.push({ setting, message: `a server name has 1 to 32 letters, digits, "_" or "-" (${where})` });
      continue;
    }
    if (seen.has(name)) {
      issues.push({ setting, message: `is configured twice (${where})` });
      continue;
    }
    seen.add(name);
    const entry = new EntryReader(name, pair.value, context);
    const server = entry.read();
    issues.push(...entry.issues);
    if (server) servers.push(server);
  }
  return { servers, issues };
}

/** One server's settings; collects every problem instead of stopping at the first. */
class EntryReader {
  readonly issues: ConfigIssue[] = [];
  private readonly fields = new Map<string, unknown>();
  private readonly lines = new Map<string, number>();

  constructor(
    private readonly name: string,
    private readonly node: unknown,
    private readonly context: McpYamlContext,
  ) {}

  read(): McpServerSettings | undefined {
    if (!isMap(this.node)) {
      this.fail("", "must be a mapping with `command` (a stdio server) or `url` (an HTTP server)", this.node);
      return undefined;
    }
    this.collect(this.node);
    const hasCommand = this.fields.has("command");
    const hasUrl = this.fields.has("url");
    if (hasCommand && hasUrl) this.fail("url", "a server has either `command` (stdio) or `url` (HTTP), not both");
    if (!hasCommand && !hasUrl) this.fail("", "needs `command` (a stdio server) or `url` (a Streamable HTTP or SSE server)", this.node);
    const transport = hasUrl && !hasCommand ? this.http() : hasCommand && !hasUrl ? this.stdio() : undefined;
    const timeoutS = this.timeout();
    const enabled = this.enabled();
    if (this.issues.length > 0 || transport === undefined) return undefined;
    return { name: this.name, transport, timeoutS, enabled };
  }

  private collect(map: YAMLMap): void {
    for (const pair of map.items) {
      const field = isScalar(pair.key) ? String(pair.key.value) : "";
      this.lines.set(field, this.context.lineOf(pair.key));
      if (!ALL_FIELDS.has(field)) {
        this.fail(field, `is not a server field (use ${[...ALL_FIELDS].join(", ")})`);
        continue;
      }
      this.fields.set(field, pair.value);
    }
  }

  private stdio(): McpServerTransportSettings | undefined {
    for (const field of HTTP_FIELDS) if (this.fields.has(field)) this.fail(field, "is only for HTTP servers (with `url`), not for one started with `command`");
    const command = this.text("command");
    const args = this.args();
    // A NUL byte makes spawn throw with the value in its message, which the masks would not recognise.
    const env = this.stringMap("env", { names: /^[A-Za-z_][A-Za-z0-9_]*$/, what: "an environment variable name", badValue: /\0/ });
    const cwd = this.fields.has("cwd") ? this.text("cwd") : undefined;
    if (command === undefined) return undefined;
    return {
      kind: "stdio",
      command,
      args,
      ...(env && { env }),
      ...(cwd !== undefined && { cwd: path.resolve(path.dirname(this.context.file), cwd) }),
    };
  }

  private http(): McpServerTransportSettings | undefined {
    for (const field of STDIO_FIELDS) if (this.fields.has(field)) this.fail(field, "is only for stdio servers (with `command`), not for one reached by `url`");
    const url = this.text("url");
    // A line break in a value could never be sent (fetch refuses it, quoting the value), so it is refused here.
    const headers = this.stringMap("headers", { names: /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, what: "an HTTP header name", badValue: /[\0-\x08\x0a-\x1f\x7f]/ });
    if (url === undefined) return undefined;
    if (!URL.canParse(url) || !["http:", "https:"].includes(new URL(url).protocol)) {
      this.fail("url", "must be an http:// or https:// URL, like https://tools.example.com/mcp");
      return undefined;
    }
    return { kind: "http", url, ...(headers && { headers }) };
  }

  private timeout(): number {
    if (!this.fields.has("timeout_s")) return DEFAULT_MCP_TIMEOUT_S;
    const node = this.fields.get("timeout_s");
    const value = isScalar(node) ? node.value : undefined;
    const seconds = typeof value === "number" || typeof value === "bigint" ? Number(value) : Number.NaN;
    if (Number.isFinite(seconds) && seconds > 0 && seconds <= MAX_TIMEOUT_S) return seconds;
    this.fail("timeout_s", `must be a number of seconds above 0 and at most ${MAX_TIMEOUT_S} (default ${DEFAULT_MCP_TIMEOUT_S})`);
    return DEFAULT_MCP_TIMEOUT_S;
  }

  private enabled(): boolean {
    if (!this.fields.has("enabled")) return true;
    const node = this.fields.get("enabled");
    if (isScalar(node) && typeof node.value === "boolean") return node.value;
    this.fail("enabled", "must be true or false");
    return true;
  }

  /** A non-empty string (a number is taken as written). */
  private text(field: string): string | undefined {
    const text = scalarText(this.fields.get(field));
    if (text !== undefined && text.trim() !== "") return text;
    this.fail(field, "must be a non-empty string");
    return undefined;
  }

  private args(): string[] {
    if (!this.fields.has("args")) return [];
    const node = this.fields.get("args");
    if (!isSeq(node)) {
      this.fail("args", "must be a list of strings, like [\"-y\", \"@modelcontextprotocol/server-filesystem\", \"/srv/files\"]");
      return [];
    }
    const args: string[] = [];
    node.items.forEach((item, index) => {
      const text = scalarText(item);
      if (text === undefined) this.fail(`args[${index}]`, "must be a string, number or boolean", item);
      else args.push(text);
    });
    return args;
  }

  /** `env` or `headers`: names checked, values never quoted (they are secrets). */
  private stringMap(field: string, rules: { names: RegExp; what: string; badValue: RegExp }): Record<string, string> | undefined {
    if (!this.fields.has(field)) return undefined;
    const node = this.fields.get(field);
    if (node === null || (isScalar(node) && node.value === null)) return undefined;
    if (!isMap(node)) {
      this.fail(field, "must be a mapping of names to values");
      return undefined;
    }
    const values: Record<string, string> = {};
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : "";
      const text = scalarText(pair.value);
      if (!rules.names.test(key)) this.fail(`${field}.${key}`, `is not ${rules.what}`, pair.key);
      else if (text === undefined) this.fail(`${field}.${key}`, "must be a string, number or boolean", pair.key);
      else if (rules.badValue.test(text)) this.fail(`${field}.${key}`, "must not hold control characters (line breaks, NUL)", pair.key);
      else values[key] = text;
    }
    return values;
  }

  private fail(field: string, message: string, node?: unknown): void {
    const line = node === undefined ? this.lines.get(field.split(/[.[]/)[0] ?? field) : this.context.lineOf(node);
    const where = line === undefined ? this.context.file : `${this.context.file} line ${line}`;
    const setting = field === "" ? `${MCP_SERVERS_KEY}.${this.name}` : `${MCP_SERVERS_KEY}.${this.name}.${field}`;
    this.issues.push({ setting, message: `${message} (${where})` });
  }
}

function scalarText(node: unknown): string | undefined {
  if (!isScalar(node)) return undefined;
  const value = node.value;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return node.source ?? String(value);
  return undefined;
}
