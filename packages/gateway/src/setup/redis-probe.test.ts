import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { probeRedis } from "./redis-probe.js";

const servers: net.Server[] = [];
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(onConnection: (socket: net.Socket) => void): Promise<number> {
  const server = net.createServer((socket) => {
    sockets.push(socket);
    onConnection(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as net.AddressInfo).port;
}

describe("probeRedis", () => {
  it("fails within its timeout when something accepts the connection but never answers", async () => {
    const port = await listen(() => undefined);
    expect(await probeRedis(`redis://127.0.0.1:${port}`, { timeoutMs: 300 })).toEqual({
      status: "fail",
      detail: `cannot reach Redis at 127.0.0.1:${port}: no answer within 0.3 s`,
    });
  });

  it("names host:port and the OS error when nothing listens, and never shows the password", async () => {
    const port = await listen(() => undefined);
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const result = await probeRedis(`redis://:hunter2secret@127.0.0.1:${port}`, { timeoutMs: 2_000 });
    expect(result.status).toBe("fail");
    expect(result.detail).toContain(`cannot reach Redis at 127.0.0.1:${port}: `);
    expect(result.detail).toContain("ECONNREFUSED");
    expect(result.detail).not.toContain("hunter2secret");
  });
});
