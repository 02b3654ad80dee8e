import net from "node:net";

/** A loopback port that nothing listens on right now (bound once, then released), for a server a test starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no port assigned"))));
    });
  });
}

// Below Linux's ephemeral range (32768–60999), where every listen(0) of the other tests running in parallel gets its
// port: a port picked there can be taken by another test's server between the pick and its use.
const CLOSED_PORT_RANGE = { from: 20_000, to: 32_000 } as const;

/**
 * A loopback port that nothing listens on and no parallel test's listen(0) will take, for a test that needs a
 * connection refused (a server that is down).
 */
export async function closedPort(): Promise<number> {
  for (;;) {
    const port = CLOSED_PORT_RANGE.from + Math.floor(Math.random() * (CLOSED_PORT_RANGE.to - CLOSED_PORT_RANGE.from));
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}
