import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "@hermes/agent";
import type { HttpHandler, HttpRequestInfo } from "../core/adapter.js";

/**
 * A route that writes its own response, e.g. a stream of server-sent events. `response` closing before the handler
 * ended it means the client went away.
 */
export type StreamingHttpHandler = (request: HttpRequestInfo, response: http.ServerResponse) => Promise<void>;

/** A bigger body limit for one route, granted only to the requests `grantedTo` admits by their headers (say a key). */
export interface BodyLimitGrant {
  maxBodyBytes: number;
  grantedTo: (headers: Readonly<Record<string, string>>) => boolean;
}

type Route = { kind: "plain"; handler: HttpHandler } | { kind: "streaming"; handler: StreamingHttpHandler; bodyLimit?: BodyLimitGrant };

export interface HttpServerOptions {
  host: string;
  port: number;
  logger: Logger;
  /** Largest request body accepted (webhooks are small); bigger requests get 413. */
  maxBodyBytes?: number;
}

/**
 * The gateway's HTTP server: health, metrics and platform webhooks. Routes are registered by exact method + path; a
 * handler that throws answers 500 and is logged, never crashing the process.
 */
export class GatewayHttpServer {
  private readonly routes = new Map<string, Route>();
  private server: http.Server | undefined;
  private readonly maxBodyBytes: number;

  constructor(private readonly options: HttpServerOptions) {
    this.maxBodyBytes = options.maxBodyBytes ?? 1_000_000;
  }

  route(method: "GET" | "POST", path: string, handler: HttpHandler): void {
    this.routes.set(`${method} ${path}`, { kind: "plain", handler });
  }

  /**
   * A route whose handler writes the response itself. `bodyLimit` raises the server's limit for the requests it admits;
   * anyone else is still read only up to the small limit, so a stranger cannot make the server hold big bodies.
   */
  streamingRoute(method: "GET" | "POST", path: string, handler: StreamingHttpHandler, options: { bodyLimit?: BodyLimitGrant } = {}): void {
    this.routes.set(`${method} ${path}`, { kind: "streaming", handler, ...(options.bodyLimit && { bodyLimit: options.bodyLimit }) });
  }

  async start(): Promise<{ host: string; port: number }> {
    const server = http.createServer((request, response) => {
      void this.handle(request, response);
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.port, this.options.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    return { host: address.address, port: address.port };
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 2_000).unref();
    });
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    const route = this.routes.get(`${request.method ?? "GET"} ${path}`);
    if (!route) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    try {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === "string") headers[name] = value;
        else if (Array.isArray(value)) headers[name] = value.join(", ");
      }
      const grant = route.kind === "streaming" ? route.bodyLimit : undefined;
      const body = await readBody(request, grant?.grantedTo(headers) === true ? grant.maxBodyBytes : this.maxBodyBytes);
      if (body === undefined) {
        response.writeHead(413, { "content-type": "text/plain" }).end("request body too large\n");
        return;
      }
      if (route.kind === "streaming") {
        await route.handler({ headers, rawBody: body }, response);
        return;
      }
      const result = await route.handler({ headers, rawBody: body });
      response.writeHead(result.status, result.headers ?? { "content-type": "text/plain; charset=utf-8" }).end(result.body ?? "");
    } catch (error) {
      this.options.logger.error("http handler failed", { path, error });
      // A streaming handler may have started its answer already: that answer is cut short instead.
      const started = response.headersSent;
      if (!started) response.writeHead(500, { "content-type": "text/plain" });
      if (!response.writableEnded) response.end(started ? undefined : "internal error\n");
    }
  }
}

async function readBody(request: http.IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}
