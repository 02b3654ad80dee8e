import type { Logger } from "@hermes/agent";
import { redactDatabaseUrl, tryOpenStore, type Store } from "@hermes/store";
import type { ConfigIssue } from "../config/errors.js";
import type { GatewayConfig } from "../config/gateway-config.js";

/** Which database the configuration names, fit for messages: the PostgreSQL URL without its password, or the file. */
export function storeLabelOf(config: Pick<GatewayConfig, "databaseUrl" | "paths">): string {
  return config.databaseUrl === undefined ? config.paths.stateDb : redactDatabaseUrl(config.databaseUrl);
}

/** The setting an operator changes when the store cannot be opened. */
export function storeSettingOf(config: Pick<GatewayConfig, "databaseUrl">): "HERMES_DATABASE_URL" | "HERMES_HOME" {
  return config.databaseUrl === undefined ? "HERMES_HOME" : "HERMES_DATABASE_URL";
}

/**
 * Opens the store every process of one deployment shares: PostgreSQL at HERMES_DATABASE_URL when it is set,
 * otherwise `$HERMES_HOME/state.db`; migrated before it is returned.
 */
export async function openConfiguredStore(
  config: Pick<GatewayConfig, "databaseUrl" | "paths">,
  logger: Logger,
): Promise<{ ok: true; store: Store } | { ok: false; issue: ConfigIssue }> {
  const opened = await tryOpenStore({ file: config.paths.stateDb, ...(config.databaseUrl !== undefined && { databaseUrl: config.databaseUrl }), logger });
  if (opened.ok) return opened;
  return { ok: false, issue: { setting: storeSettingOf(config), message: `cannot open ${storeLabelOf(config)}: ${opened.error.message}` } };
}
