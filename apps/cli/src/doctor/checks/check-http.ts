import net from "node:net";
import { describeRequestFailure, type ProbeResult } from "@hermes/gateway";
import type { DoctorContext } from "../doctor-check.js";

/** HERMES_HTTP_HOST:PORT must be free to bind; a gateway already running there is only a warning. */
export async function checkHttp(context: DoctorContext): Promise<ProbeResult> {
  const { host, port } = context.config.http;
  if (port === 0) return { status: "ok", detail: `${host}: a free port is picked at start (HERMES_HTTP_PORT=0)` };
  const address = `${host}:${port}`;
  const bound = await tryListen(host, port);
  if (bound === undefined) return { status: "ok", detail: `${address} is free` };
  if (bound.code !== "EADDRINUSE") return { status: "fail", detail: `cannot listen on ${address}: ${bound.message}` };
  const url = `http://${reachableHost(host)}:${port}/healthz`;
  try {
    const response = await context.probe.fetch(url, { signal: AbortSignal.timeout(context.probe.timeoutMs) });
    await response.body?.cancel();
    if (response.status === 200) return { status: "warn", detail: `${address} is in use by a running gateway (its /healthz answers); stop it before starting another` };
    return { status: "fail", detail: `${address} is in use by another program (GET /healthz answered ${response.status})` };
  } catch (error) {
    return { status: "fail", detail: `${address} is in use by another program (no /healthz: ${describeRequestFailure(error, context.probe.timeoutMs)})` };
  }
}

function tryListen(host: string, port: number): Promise<(Error & { code?: string }) | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", (error: Error & { code?: string }) => resolve(error));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** Where to reach a server listening on every interface. */
export function reachableHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}
