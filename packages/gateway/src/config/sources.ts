import { PROVIDER_KEY_NAMES } from "@hermes/agent";
import path from "node:path";
import { readConfigYaml } from "./config-yaml.js";
import { readDotEnvFile } from "./dotenv-file.js";
import type { ConfigIssue } from "./errors.js";
import type { McpServerSettings } from "./gateway-config.js";
import type { RawSetting } from "./setting-reader.js";
import { SETTINGS, type SettingName } from "./settings.js";

export const DEFAULT_HERMES_HOME = "~/.hermes-gateway";
export const CONFIG_YAML_NAME = "config.yaml";
export const DOTENV_NAME = ".env";

export interface SourceOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly homeDir: string;
}

/** Every setting's winning raw value, plus where state lives and what went wrong reading the files. */
export interface ConfigSources {
  readonly home: string;
  readonly values: ReadonlyMap<SettingName, RawSetting>;
  /** Provider API keys by variable name (ANTHROPIC_API_KEY, OPENAI_API_KEY, …) from the same sources. */
  readonly providerKeys: Readonly<Record<string, string>>;
  readonly issues: readonly ConfigIssue[];
  readonly warnings: readonly string[];
  /** config.yaml `mcp_servers` (only the file holds it). */
  readonly mcpServers: readonly McpServerSettings[];
}

/**
 * Gathers settings from, strongest first: the process environment, `.env` in the working folder,
 * and `$HERMES_HOME/config.yaml`. An empty value anywhere counts as unset, so it never hides a weaker source.
 */
export async function readConfigSources(options: SourceOptions): Promise<ConfigSources> {
  const dotEnvFile = path.join(options.cwd, DOTENV_NAME);
  const dotEnv = await readDotEnvFile(dotEnvFile);
  const dotEnvVars = dotEnv.ok ? dotEnv.vars : {};
  const fromEnvironment = (name: string): RawSetting | undefined => {
    const own = nonEmpty(options.env[name]);
    if (own !== undefined) return { text: own };
    const fromFile = nonEmpty(dotEnvVars[name]);
    return fromFile === undefined ? undefined : { text: fromFile, origin: dotEnvFile };
  };

  const home = resolveHermesHome(fromEnvironment("HERMES_HOME")?.text, options);
  const yaml = await readConfigYaml(path.join(home, CONFIG_YAML_NAME));

  const values = new Map<SettingName, RawSetting>();
  for (const { name } of SETTINGS) {
    if (name === "HERMES_HOME") continue;
    const value = fromEnvironment(name) ?? yaml.values.get(name);
    if (value !== undefined) values.set(name, value);
  }
  const providerKeys: Record<string, string> = {};
  for (const name of PROVIDER_KEY_NAMES) {
    const value = fromEnvironment(name) ?? yaml.values.get(name);
    if (value !== undefined) providerKeys[name] = value.text;
  }
  const issues = dotEnv.ok ? [...yaml.issues] : [dotEnv.issue, ...yaml.issues];
  return { home, values, providerKeys, issues, warnings: yaml.warnings, mcpServers: yaml.mcpServers ?? [] };
}

/** Absolute state folder: `~` means `homeDir`, relative paths are taken from `cwd`. */
export function resolveHermesHome(configured: string | undefined, options: { cwd: string; homeDir: string }): string {
  const raw = configured ?? DEFAULT_HERMES_HOME;
  const expanded = raw === "~" ? options.homeDir : /^~[/\\]/.test(raw) ? path.join(options.homeDir, raw.slice(2)) : raw;
  return path.resolve(options.cwd, expanded);
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === "" ? undefined : trimmed;
}
