import type { CheckOutcome } from "./doctor-check.js";

const LABELS = { ok: "ok  ", warn: "warn", fail: "FAIL" } as const;

/** `{"ok":…,"checks":[…]}`: ok means no check failed (warnings allowed). */
export function doctorJson(checks: readonly CheckOutcome[]): string {
  const ok = checks.every((check) => check.status !== "fail");
  return JSON.stringify({ ok, checks: checks.map(({ name, status, detail }) => ({ name, status, detail })) }, null, 2);
}

/** One line per check; a long detail wraps onto indented lines rather than being cut. */
export function doctorText(checks: readonly CheckOutcome[]): string {
  const width = Math.max(...checks.map((check) => check.name.length));
  const lines = checks.map((check) => `${LABELS[check.status]}  ${check.name.padEnd(width)}  ${check.detail.replace(/\r?\n/g, `\n${" ".repeat(width + 8)}`)}`);
  const failed = checks.filter((check) => check.status === "fail").length;
  const warned = checks.filter((check) => check.status === "warn").length;
  const summary =
    failed > 0
      ? `${failed} check${failed === 1 ? "" : "s"} failed.`
      : `Everything needed to start is in place${warned > 0 ? ` (${warned} warning${warned === 1 ? "" : "s"})` : ""}.`;
  return `${lines.join("\n")}\n\n${summary}`;
}
