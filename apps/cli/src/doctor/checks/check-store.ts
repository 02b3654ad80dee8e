import { silentLogger } from "@hermes/agent";
import type { ProbeResult } from "@hermes/gateway";
import { tryOpenStore } from "@hermes/store";
import type { DoctorContext } from "../doctor-check.js";

/** Opens (and migrates) the state database the gateway would use. */
export async function checkStore(context: DoctorContext): Promise<ProbeResult> {
  const file = context.config.paths.stateDb;
  const opened = await tryOpenStore({ file, logger: silentLogger });
  if (!opened.ok) return { status: "fail", detail: `cannot open ${file}: ${opened.error.message}` };
  await opened.store.close();
  return { status: "ok", detail: `${file} opens and is up to date` };
}
