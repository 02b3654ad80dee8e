import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** What happens to the answer of a request the proxy forwarded. */
export type LostAnswer =
  /** The connection drops once the platform has answered: the client sees a reset, the platform acted. */
  | { kind: "drop" }
  /** The answer is held this long (longer than the client waits): the client times out, the platform acted. */
  | { kind: "late"; delayMs: number };

export interface LossyProxy {
  /** `http://127.0.0.1:<port>`: point a client's API base here instead of at the stand-in. */
  readonly url: string;
  /** The next request whose path matches is forwarded to the stand-in, and its answer is then lost as `how` says. */
  loseNextAnswer(path: RegExp, how: LostAnswer): void;
  /** How many answers were lost so far. */
  readonly lost: number;
  close(): Promise<void>;
}

/**
 * A loopback proxy in front of a stand-in platform server that loses answers on the way back: the request reaches the
 * platform and takes effect, but the client never learns it. This is the ambiguous case of a send, which a stand-in
 * that refuses a request outright cannot show.
 */
export async function startLossyProxy(upstream: string): Promise<LossyProxy> {
  const target = new URL(upstream);
  const faults: Array<{ path: RegExp; how: LostAnswer }> = [];
  const sockets = new Set<Socket>();
  let lost = 0;

  const server = http.createServer((req, res) => {
    const index = faults.findIndex((fault) => fault.path.test(req.url ?? ""));
    const fault = index === -1 ? undefined : faults.splice(index, 1)[0];
    const forwarded = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => {
          const reply = () => {
            if (res.destroyed) return;
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(chunks));
          };
          if (fault === undefined) return reply();
          lost += 1;
          if (fault.how.kind === "drop") return void req.socket.destroy();
          const timer = setTimeout(reply, fault.how.delayMs);
          res.on("close", () => clearTimeout(timer));
        });
      },
    );
    forwarded.on("error", () => req.socket.destroy());
    req.pipe(forwarded);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    loseNextAnswer: (path, how) => void faults.push({ path, how }),
    get lost() {
      return lost;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
