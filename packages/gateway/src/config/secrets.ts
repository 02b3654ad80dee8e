import { parseApiKeys } from "@hermes/agent";
import type { GatewayConfig, McpServerSettings } from "./gateway-config.js";

/** Every secret value in the configuration, for masking in logs and error text. */
export function configSecrets(config: GatewayConfig): string[] {
  const secrets: Array<string | undefined> = [
    config.model?.apiKey,
    config.fallback?.apiKey,
    config.telegram?.token,
    config.telegram?.webhook?.secret,
    config.discord?.token,
    config.slack?.botToken,
    config.slack?.signingSecret,
    config.slack?.appToken,
    config.search?.kind === "brave" ? config.search.apiKey : undefined,
    config.metricsToken,
    config.apiServerKey,
    config.speechToText?.apiKey,
  ];
  const urls = [
    config.redisUrl,
    config.model?.baseUrl,
    config.fallback?.baseUrl,
    config.telegram?.apiRoot,
    config.telegram?.webhook?.url,
    config.discord?.apiUrl,
    config.slack?.apiUrl,
    config.search?.kind === "searxng" ? config.search.url : undefined,
    config.speechToText?.baseUrl,
    ...(config.mcpServers ?? []).map((server) => (server.transport.kind === "http" ? server.transport.url : undefined)),
  ];
  // A key setting may list several keys; each one alone must be masked too, not only the joined text.
  const keySettings = [config.model?.apiKey, config.fallback?.apiKey, ...Object.values(config.providerKeys)];
  secrets.push(...Object.values(config.providerKeys), ...keySettings.flatMap((value) => parseApiKeys(value)));
  for (const url of urls) secrets.push(...urlPasswords(url));
  secrets.push(...(config.mcpServers ?? []).flatMap(mcpServerSecrets));
  return [...new Set(secrets.filter((secret): secret is string => secret !== undefined && secret !== ""))];
}

// A header such as "Authorization: Bearer <token>" may be logged as the token alone.
function mcpServerSecrets(server: McpServerSettings): string[] {
  if (server.transport.kind === "stdio") return Object.values(server.transport.env ?? {});
  return Object.values(server.transport.headers ?? {}).flatMap((value) => [value, ...value.split(/\s+/).slice(1)]);
}

// A password can reach a log either as written in the URL or decoded by a client library.
function urlPasswords(url: string | undefined): string[] {
  if (url === undefined || !URL.canParse(url)) return [];
  const password = new URL(url).password;
  if (password === "") return [];
  return [password, safeDecode(password)];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
