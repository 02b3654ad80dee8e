import http from "node:http";
import type { AddressInfo } from "node:net";
import type { HttpHandler } from "@hermes/gateway";

/**
 * Serves an adapter's routes over real HTTP on 127.0.0.1, as the gateway's server does, so tests post signed requests
 * the way Slack does. Resolves with the base URL and a function closing the server.
 */
export async function serveAdapterRoutes(routes: Map<string, HttpHandler>): Promise<{ base: string; close: () => Promise<void> }> {
  const listening = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const handler = routes.get(`${req.method ?? ""} ${req.url ?? ""}`);
      if (!handler) return void res.writeHead(404).end();
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : (value ?? "")]));
      void handler({ headers, rawBody: Buffer.concat(chunks) }).then((answer) => res.writeHead(answer.status, answer.headers).end(answer.body ?? ""));
    });
  });
  await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", () => resolve()));
  return {
    base: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => listening.close(() => resolve())),
  };
}
