import { afterEach, describe, expect, it } from "vitest";
import { startAnthropicServer, type AnthropicServer, type AnthropicServerOptions } from "../../../../test/fakes/anthropic-server.js";
import { probeModel } from "./model-probe.js";

const GOOD_KEY = "sk-ant-probe-good-0001";
const BAD_KEY = "sk-ant-probe-revoked-0002";
const probe = { fetch: globalThis.fetch, timeoutMs: 5_000 };

let server: AnthropicServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function anthropic(options: AnthropicServerOptions = {}): Promise<AnthropicServer> {
  server = await startAnthropicServer(options);
  return server;
}

const input = (baseUrl: string, model: string, apiKey: string) => ({ model, baseUrl, api: "anthropic-messages" as const, apiKey, providerKeys: {} });

describe("probeModel on an Anthropic Messages endpoint (HERMES_API=anthropic-messages)", () => {
  it("asks for a tiny answer over the Messages API, with the base URL trimmed as the gateway trims it", async () => {
    const fake = await anthropic();
    fake.enqueue({ kind: "text", text: "OK" });
    const result = await probeModel(input(`${fake.baseUrl}/v1`, "claude-stand-in", GOOD_KEY), probe);
    expect(result).toEqual({ status: "ok", detail: `claude-stand-in at ${fake.baseUrl} answers (anthropic-messages, context 128,000 tokens)` });
    // The stand-in keeps no model list here (GET /v1/models is a 404), so only the real request decides.
    expect(fake.requests.map((request) => request.status)).toEqual([404, 200]);
    expect(fake.requests.at(-1)).toMatchObject({ apiKey: GOOD_KEY, body: { model: "claude-stand-in", max_tokens: 16 }, tools: [] });
  });

  it("fails naming the 401 when the key is refused, and never shows the key", async () => {
    const fake = await anthropic({ rejectedKeys: [BAD_KEY] });
    const result = await probeModel(input(fake.baseUrl, "claude-stand-in", BAD_KEY), probe);
    expect(result.status).toBe("fail");
    expect(result.detail).toMatch(new RegExp(`^claude-stand-in at ${fake.baseUrl}: .*401`));
    expect(result.detail).not.toContain(BAD_KEY);
  });

  it("takes the did-you-mean list from GET /v1/models when the endpoint lists its models", async () => {
    const fake = await anthropic({ models: ["claude-stand-in", "claude-other"], rejectedKeys: [BAD_KEY] });
    expect(await probeModel(input(fake.baseUrl, "claude-stand-inn", GOOD_KEY), probe)).toEqual({
      status: "fail",
      detail: `"claude-stand-inn" is not served at ${fake.baseUrl}. Did you mean "claude-stand-in"?`,
    });
    expect(fake.requests.at(-1)).toMatchObject({ apiKey: GOOD_KEY, headers: { "anthropic-version": "2023-06-01" }, status: 200 });
    const refused = await probeModel(input(fake.baseUrl, "claude-stand-in", BAD_KEY), probe);
    expect(refused).toEqual({ status: "fail", detail: `${fake.baseUrl} refused the API key (401 Unauthorized): check HERMES_API_KEY` });
  });
});
