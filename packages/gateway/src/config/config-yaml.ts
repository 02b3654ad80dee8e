import { readFile } from "node:fs/promises";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from "yaml";
import type { ConfigIssue } from "./errors.js";
import { describeReadFailure, isMissingFile } from "./file-errors.js";
import type { RawSetting } from "./setting-reader.js";
import { PROVIDER_KEY_NAMES } from "@hermes/agent";
import { isSettingName, SETTINGS } from "./settings.js";
import { editDistance } from "./edit-distance.js";
import type { McpServerSettings } from "./gateway-config.js";
import { MCP_SERVERS_KEY, readMcpServers } from "./mcp-settings.js";

export interface ConfigYaml {
  /** Settings (and provider API keys such as ANTHROPIC_API_KEY) with a value; a null or empty value counts as unset. */
  readonly values: ReadonlyMap<string, RawSetting>;
  readonly issues: readonly ConfigIssue[];
  readonly warnings: readonly string[];
  /** The `mcp_servers` map, when the file has that key. */
  readonly mcpServers?: readonly McpServerSettings[];
}

// Each parse error tends to cause a few more; the first ones are the ones worth reading.
const MAX_SYNTAX_ERRORS = 5;

// HERMES_HOME decides where this file is, so the file cannot move itself.
const NOT_ALLOWED_IN_FILE: ReadonlySet<string> = new Set(["HERMES_HOME"]);

const EMPTY: ConfigYaml = { values: new Map(), issues: [], warnings: [] };

/** Reads `config.yaml`; a missing file is simply no settings. */
export async function readConfigYaml(file: string): Promise<ConfigYaml> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (isMissingFile(error)) return EMPTY;
    return { ...EMPTY, issues: [{ setting: file, message: describeReadFailure(error) }] };
  }
  return parseConfigYaml(text, file);
}

/** Top-level keys are setting names, values plain scalars; `file` is only used in messages. */
export function parseConfigYaml(text: string, file: string): ConfigYaml {
  const lineCounter = new LineCounter();
  // Big integers (Discord ids) must survive exactly, so numbers are taken from their source text below.
  const doc = parseDocument(text, { lineCounter, intAsBigInt: true, prettyErrors: true });
  const lineOf = (offset: number): number => lineCounter.linePos(offset).line;

  if (doc.errors.length > 0) {
    const issues = doc.errors.slice(0, MAX_SYNTAX_ERRORS).map((error) => {
      const position = error.linePos?.[0];
      const where = position ? `line ${position.line}, column ${position.col}: ` : "";
      return { setting: file, message: `${where}invalid YAML: ${firstLine(error.message)}` };
    });
    return { ...EMPTY, issues };
  }
  const warnings = doc.warnings.map((warning) => `${file}: ${firstLine(warning.message)}`);
  const root = doc.contents;
  if (root === null || (isScalar(root) && root.value === null)) return { ...EMPTY, warnings };
  if (!isMap(root)) {
    const line = root.range ? lineOf(root.range[0]) : 1;
    const example = "HERMES_MODEL: anthropic/claude-sonnet-4-5";
    const message = `line ${line}: must be a mapping of setting names to values, like "${example}"`;
    return { ...EMPTY, issues: [{ setting: file, message }], warnings };
  }

  const values = new Map<string, RawSetting>();
  const issues: ConfigIssue[] = [];
  let mcpServers: McpServerSettings[] | undefined;
  for (const pair of root.items) {
    const keyNode = pair.key;
    const line = isNode(keyNode) && keyNode.range ? lineOf(keyNode.range[0]) : 1;
    const name = isScalar(keyNode) ? String(keyNode.value) : undefined;
    if (name === MCP_SERVERS_KEY) {
      const section = readMcpServers(pair.value, { file, lineOf: (node) => (isNode(node) && node.range ? lineOf(node.range[0]) : line) });
      mcpServers = section.servers;
      issues.push(...section.issues);
      continue;
    }
    if (name === undefined || !(isSettingName(name) || PROVIDER_KEY_NAMES.has(name))) {
      warnings.push(`${file} line ${line}: ${unknownKeyMessage(name)}`);
      continue;
    }
    if (NOT_ALLOWED_IN_FILE.has(name)) {
      warnings.push(`${file} line ${line}: ${name} is ignored here; set it in the environment or .env`);
      continue;
    }
    const valueNode = pair.value;
    const scalar = scalarText(valueNode);
    if (scalar.kind === "unsupported") {
      const message = `must be a string, number or boolean in ${file} line ${line} (got ${scalar.got})`;
      issues.push({ setting: name, message });
    } else if (scalar.kind === "text" && scalar.text.trim() !== "") {
      values.set(name, { text: scalar.text.trim(), origin: `${file} line ${line}` });
    }
  }
  return { values, issues, warnings, ...(mcpServers && { mcpServers }) };
}

type ScalarText = { kind: "text"; text: string } | { kind: "unset" } | { kind: "unsupported"; got: string };

function scalarText(node: unknown): ScalarText {
  if (node === null || node === undefined) return { kind: "unset" };
  if (isMap(node)) return { kind: "unsupported", got: "a mapping" };
  if (isSeq(node)) return { kind: "unsupported", got: "a list" };
  if (!isScalar(node)) return { kind: "unsupported", got: "an alias or tag" };
  const value = node.value;
  if (value === null) return { kind: "unset" };
  if (typeof value === "string") return { kind: "text", text: value };
  // Source text keeps what the operator wrote: "0x1F" stays not-a-decimal, "1.50" stays as typed.
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") {
    return { kind: "text", text: node.source ?? String(value) };
  }
  return { kind: "unsupported", got: "a tagged value" };
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && "range" in value;
}

function firstLine(message: string): string {
  const line = message.split("\n")[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, "").trim();
}

function unknownKeyMessage(name: string | undefined): string {
  if (name === undefined) return "a key that is not a setting name is ignored";
  const suggestion = closestSettingName(name);
  const hint = suggestion ? ` (did you mean ${suggestion}?)` : "";
  return `unknown setting ${JSON.stringify(name)} is ignored${hint}`;
}

function closestSettingName(name: string): string | undefined {
  const upper = name.toUpperCase();
  let best: { name: string; distance: number } | undefined;
  for (const setting of SETTINGS) {
    const distance = editDistance(upper, setting.name);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: setting.name, distance };
  }
  return best?.name;
}
