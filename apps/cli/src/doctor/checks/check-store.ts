import { silentLogger } from "@hermes/agent";
import { openConfiguredStore, storeLabelOf, type ProbeResult } from "@hermes/gateway";
import type { DoctorContext } from "../doctor-check.js";

/**
 * Opens (and migrates) the state database the gateway would use: PostgreSQL at HERMES_DATABASE_URL or
 * $HERMES_HOME/state.db. Reachable, migrated and writable, or the first of these that is not.
 */
export async function checkStore(context: DoctorContext): Promise<ProbeResult> {
  const label = storeLabelOf(context.config);
  const opened = await openConfiguredStore(context.config, silentLogger);
  if (!opened.ok) return { status: "fail", detail: opened.issue.message };
  try {
    const writable = await opened.store.checkWritable();
    if (!writable.ok) return { status: "fail", detail: `${label} opens and is up to date but does not take writes: ${writable.error}` };
    return { status: "ok", detail: `${label} opens, is up to date and takes writes` };
  } finally {
    await opened.store.close();
  }
}
