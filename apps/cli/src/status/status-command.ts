import os from "node:os";
import { ALL_TOOL_NAMES, DEFAULT_PROBE_TIMEOUT_MS, DEFAULT_TOOL_NAMES, describeRequestFailure, formatConfigIssues, loadConfig, type FetchLike } from "@hermes/gateway";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "../cli/command-spec.js";
import { reachableHost } from "../doctor/checks/check-http.js";
import { formatReadiness, parseReadinessBody } from "./readiness-body.js";

export interface StatusIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  fetch?: FetchLike;
}

/** `hermes status [--json]`: the running gateway's readiness (`GET /readyz`); 0 ready, 1 unready or not running. */
export async function runStatus(io: StatusIo, options: { json: boolean }): Promise<number> {
  const loaded = await loadConfig({ env: io.env, cwd: io.cwd, homeDir: os.homedir(), knownTools: ALL_TOOL_NAMES, defaultTools: DEFAULT_TOOL_NAMES });
  if (!loaded.ok) {
    io.stderr.write(`${formatConfigIssues(loaded.errors)}\n`);
    return EXIT_USAGE;
  }
  const { host, port } = loaded.config.http;
  const address = `http://${reachableHost(host)}:${port}`;
  const fetch = io.fetch ?? globalThis.fetch;
  let status: number;
  let text: string;
  try {
    const response = await fetch(`${address}/readyz`, { signal: AbortSignal.timeout(DEFAULT_PROBE_TIMEOUT_MS) });
    status = response.status;
    text = await response.text();
  } catch (error) {
    io.stderr.write(`no gateway is answering on ${address} (${describeRequestFailure(error, DEFAULT_PROBE_TIMEOUT_MS)}); start it with npm start\n`);
    return EXIT_FAILED;
  }
  const body = parseReadinessBody(text);
  if (!body) {
    io.stderr.write(`${address}/readyz answered ${status} with something that is not a gateway's readiness report\n`);
    return EXIT_FAILED;
  }
  io.stdout.write(options.json ? `${text.trimEnd()}\n` : `${formatReadiness(address, body)}\n`);
  return status === 200 && body.status === "ready" ? EXIT_OK : EXIT_FAILED;
}
