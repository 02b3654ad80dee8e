import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../observability/logger.js";
import { webFetchTool } from "./web-fetch.js";

let server: http.Server;
let port: number;
let hits: number;

beforeEach(async () => {
  hits = 0;
  server = http.createServer((_req, res) => {
    hits += 1;
    res.writeHead(200, { "content-type": "text/plain" }).end("internal secret page");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterEach(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const context = { signal: new AbortController().signal, toolCallId: "c1", sessionId: "s1", logger: silentLogger };

describe("web_fetch connection guard", () => {
  it("refuses a host whose DNS answer changes to a private address after the check (rebinding)", async () => {
    const answers = [["93.184.216.34"], ["127.0.0.1"]];
    const lookup = async (): Promise<string[]> => answers.shift() ?? ["127.0.0.1"];
    const tool = webFetchTool({ lookup });
    const result = await tool.handler({ url: `http://rebind.test:${port}/` }, context);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/private or reserved address 127\.0\.0\.1/);
    expect(hits).toBe(0);
  });

  it("connects to the resolved address when private networks are allowed", async () => {
    const tool = webFetchTool({ allowPrivateNetwork: true, lookup: async () => ["127.0.0.1"] });
    const result = await tool.handler({ url: `http://intranet.test:${port}/` }, context);
    expect(result.isError).toBeFalsy();
    expect(result.content).toContain("internal secret page");
    expect(hits).toBe(1);
  });
});
