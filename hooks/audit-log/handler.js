import { appendFile, mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

// Resolved the way the gateway resolves HERMES_HOME: "~" is the user's home, a relative path starts at the working
// folder. Read on every event, so the file follows the setting of the process the hook runs in.
function hermesHome() {
  const configured = (process.env.HERMES_HOME ?? "").trim() || "~/.hermes-gateway";
  const expanded = configured === "~" ? os.homedir() : /^~[/\\]/.test(configured) ? path.join(os.homedir(), configured.slice(2)) : configured;
  return path.resolve(expanded);
}

/** One JSON object per line, so the file can be tailed, grepped and shipped to a log store as is. */
export default async function auditLog(event) {
  const logsDir = path.join(hermesHome(), "logs");
  await mkdir(logsDir, { recursive: true });
  // A single append of a whole line: concurrent events never interleave inside a line.
  await appendFile(path.join(logsDir, "hooks-audit.jsonl"), `${JSON.stringify(event)}\n`, "utf8");
}
